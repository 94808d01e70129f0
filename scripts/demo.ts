// demo runs the whole chain end to end on an embedded example. It arrives with the driver
// (issue 6); until then it says so and exits 0.
process.stderr.write('repairline demo: the end-to-end demo arrives with the driver (scripts/attempt.ts); run `npm test` meanwhile.\n')
