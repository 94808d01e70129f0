/** True when a command line asks for help (`--help` or `-h` anywhere): help prints and exits 0. */
export function asksForHelp (argv: readonly string[]): boolean {
  return argv.some(a => a === '--help' || a === '-h')
}

/**
 * The V8 flag every step runs with: WebAssembly (tree-sitter's grammars in the gate, verify
 * and readback; undici's HTTP parser in ask-provider) is compiled by the baseline compiler only
 * (why: run-cli.ts). The launcher sets it before it compiles a tool, because V8 accepts a code
 * cache only under the flags it was made with (launch.ts).
 */
export const STEP_V8_FLAGS = '--liftoff-only'

/**
 * The environment variable that makes a bin a standby, started by the driver ahead of its
 * step (scripts/attempt.ts): the launcher loads the bundle, then waits for the step's
 * arguments on stdin (one JSON array of strings and a newline) and runs as if started with
 * them. Its stdin ending first means the driver went another way: the standby ends at once,
 * exit 0, having printed and written nothing.
 */
export const STANDBY_VARIABLE = 'REPAIRLINE_STANDBY'
