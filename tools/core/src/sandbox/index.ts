// The sandbox (DESIGN §11): bwrap under an unprivileged uid, cgroup and rlimit limits read
// back from the kernel, supervisor-side output caps, the deadline kill and resource samples.

export * from './limits.ts'
export * from './host.ts'
export * from './bind-check.ts'
export * from './bind-scan-memo.ts'
export * from './resources.ts'
export * from './cgroup.ts'
export * from './mountinfo.ts'
export * from './rlimits.ts'
export * from './argv.ts'
export * from './seccomp.ts'
export * from './keyring.ts'
export * from './launcher.ts'
export * from './run.ts'
export * from './preflight.ts'
