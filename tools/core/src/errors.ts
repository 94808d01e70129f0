// Typed errors. Every refusal has a stable code; callers match on `code`, never on
// `instanceof` (errors cross process and bundle boundaries). Each code has one default
// exit status from the table in exit-codes.ts; a tool may override it where the same
// rule means a terminal outcome (exit 1) after admission rather than a refusal before it.

import { EXIT, type ExitCode } from './exit-codes.ts'

/** Every stable error code, its default exit status and a one-line meaning. */
export const ERROR_CODES = {
  USAGE: { exit: EXIT.USAGE, summary: 'bad flags or arguments' },
  INTERNAL: { exit: EXIT.INTERNAL, summary: 'internal bug' },
  // admit init: what it cannot derive from the checkout and the flags
  RUNNER_UNDETECTED: { exit: EXIT.USAGE, summary: 'admit init found neither or both of go.mod and package.json: name the runner with --runner' },
  TEST_IDENTITY_INVALID: { exit: EXIT.USAGE, summary: 'a --test identity names no test package of the checkout at HEAD' },
  // input and contracts
  ATTEMPT_MISSING: { exit: EXIT.NO_INPUT, summary: 'no --attempt and no attempt record on stdin' },
  INPUT_MISSING: { exit: EXIT.NO_INPUT, summary: 'a required file is missing or unreadable' },
  RECORD_INVALID: { exit: EXIT.DATA, summary: 'an NDJSON record on stdin broke its contract' },
  FILE_INVALID: { exit: EXIT.DATA, summary: 'a file broke its schema or is not strict JSON' },
  REPORT_INVALID: { exit: EXIT.DATA, summary: 'the suite report broke its schema' },
  CASE_INPUT_MISMATCH: { exit: EXIT.DATA, summary: "a case's input_sha256 does not match its content" },
  EVENTS_INVALID: { exit: EXIT.DATA, summary: 'test events on stdin could not be read' },
  REGISTER_MANIFEST_MISSING: { exit: EXIT.DATA, summary: 'no .repairline/registers.json at source_sha' },
  REGISTER_MANIFEST_INVALID: { exit: EXIT.DATA, summary: 'the register manifest broke its schema or vocabulary' },
  REGISTER_TUPLE_MISMATCH: { exit: EXIT.DATA, summary: 'a register tuple disagrees with the manifest blob' },
  ATTEMPT_INCOMPLETE: { exit: EXIT.DATA, summary: "an earlier step's file is missing or invalid" },
  LATER_STAGE_EXISTS: { exit: EXIT.DATA, summary: "a later step's files exist: rerunning this step would change what they were made from" },
  UPSTREAM_REFUSED: { exit: EXIT.DATA, summary: 'the previous step of the pipe refused (its result on stdin: non-zero, no outcome); nothing is done on its attempt' },
  // execution config (78)
  CONFIG_INVALID: { exit: EXIT.CONFIG, summary: 'the execution config broke its schema or a bound' },
  BASE_URL_INVALID: { exit: EXIT.CONFIG, summary: 'provider.base_url is not a canonical https URL' },
  TOKEN_HELPER_MISMATCH: { exit: EXIT.CONFIG, summary: 'the token helper is missing or its sha256 differs' },
  TOKEN_HELPER_NOT_EXECUTABLE: { exit: EXIT.CONFIG, summary: 'the token helper has no execute permission' },
  SOURCE_NOT_GIT: { exit: EXIT.CONFIG, summary: 'source_root is not a usable git checkout' },
  SOURCE_SHA_UNKNOWN: { exit: EXIT.CONFIG, summary: 'source_sha is not a commit in source_root' },
  CHECKOUT_DIRTY: { exit: EXIT.CONFIG, summary: 'the source checkout has changes or untracked files' },
  ALLOWED_FILE_INVALID: { exit: EXIT.CONFIG, summary: 'an allowed file is not an editable source blob' },
  TEST_PACKAGE_INVALID: { exit: EXIT.CONFIG, summary: 'a test package is not an exact target' },
  ROUTING_POLICY_INVALID: { exit: EXIT.CONFIG, summary: 'the routing policy broke its schema' },
  ROUTE_MODEL_MISMATCH: { exit: EXIT.CONFIG, summary: "a route's model differs from provider.model" },
  STATE_DIR_INVALID: { exit: EXIT.CONFIG, summary: 'state_dir cannot be used' },
  MOUNT_UNREADABLE: { exit: EXIT.CONFIG, summary: 'a configured mount is not readable by the sandbox user' },
  CHECK_INVALID: { exit: EXIT.CONFIG, summary: 'a clause of checks names a file that is not an allowed file' },
  CHECK_REGEX_UNSAFE: { exit: EXIT.CONFIG, summary: 'a regular expression of checks is not RE2-safe (backreference, lookaround, over 512 bytes, or not RE2 syntax)' },
  CHECK_EXEC_UNRESOLVED: { exit: EXIT.CONFIG, summary: "a command of checks does not resolve to a program the sandbox shows (the runner's toolchain bin, /usr/bin, /usr/sbin)" },
  // source tree (refused by admit before anything is consumed; rejected by extract-tree)
  TREE_SYMLINK: { exit: EXIT.DATA, summary: 'the tree holds a symlink' },
  TREE_GITLINK: { exit: EXIT.DATA, summary: 'the tree holds a gitlink (submodule)' },
  TREE_MODE_UNSUPPORTED: { exit: EXIT.DATA, summary: 'the tree holds an entry that is not a regular file' },
  TREE_PATH_UNSAFE: { exit: EXIT.DATA, summary: 'a tree path has .., .git, an absolute form or a control character' },
  TREE_PATH_DUPLICATE: { exit: EXIT.DATA, summary: 'two tree paths are equal or differ only in case' },
  TREE_NODE_MODULES: { exit: EXIT.DATA, summary: 'the tree tracks node_modules (the dependency mount point)' },
  TREE_TOO_MANY_ENTRIES: { exit: EXIT.DATA, summary: 'the tree has more than 20,000 blob entries' },
  TREE_TOO_LARGE: { exit: EXIT.DATA, summary: 'the tree has more than 16 MiB of blob bytes' },
  TREE_SHARED_METADATA: { exit: EXIT.DATA, summary: 'the repository uses alternates, grafts, a shallow history or a partial clone' },
  TREE_OBJECT_MISMATCH: { exit: EXIT.DATA, summary: 'a blob does not hash to its id (tampered object store)' },
  TREE_MALFORMED: { exit: EXIT.DATA, summary: "a tree object is not in git's canonical form (entries out of order)" },
  // reading the extracted tree (tree.tar + tree-manifest.json) in later steps
  TREE_ARCHIVE_MISMATCH: { exit: EXIT.DATA, summary: 'tree.tar does not match tree-manifest.json (a retained file changed)' },
  TREE_FILE_MISSING: { exit: EXIT.DATA, summary: 'a path is not a regular file of the extracted tree' },
  // eligibility and verdicts
  NOTHING_ELIGIBLE: { exit: EXIT.NO, summary: 'no eligible, unconsumed case' },
  REPAIR_NOT_REPAIRABLE: { exit: EXIT.NO, summary: 'the attempt did not end rejected after a proposal or failed (a fault, timeout, provider error or not_reproduced never starts a repair)' },
  REPAIR_ROUNDS_SPENT: { exit: EXIT.NO, summary: 'the attempt is already the second repair round of its case' },
  REPAIR_ALREADY_STARTED: { exit: EXIT.NO, summary: 'the repair of this attempt was already admitted (its key is consumed)' },
  REPAIR_INPUTS_CHANGED: { exit: EXIT.NO, summary: "the attempt to repair is not one of this config's state root, or was made under another source commit, config, routing policy or register manifest" },
  REPAIR_SOURCE_INVALID: { exit: EXIT.NO, summary: 'the attempt to repair is not sealed or does not read back' },
  ATTEMPT_RUNNING: { exit: EXIT.TEMP, summary: 'the attempt has no outcome and its deadline has not passed' },
  DEADLINE_PASSED: { exit: EXIT.NO, summary: 'the attempt passed its deadline (timed_out)' },
  GATE_REJECTED: { exit: EXIT.NO, summary: 'a gate rule failed: the proposal is rejected for review (gate-patch)' },
  ATTEMPT_INTERRUPTED: { exit: EXIT.NO, summary: 'started, no outcome, and past deadline + 30 s (interrupted)' },
  // state root
  LOCK_HELD: { exit: EXIT.TEMP, summary: 'another attempt holds the lock' },
  LOCK_LOST: { exit: EXIT.TEMP, summary: 'the lock does not name this attempt' },
  RETENTION_FULL: { exit: EXIT.CANT_CREATE, summary: '32 attempts are retained' },
  ATTEMPT_KEY_COLLISION: { exit: EXIT.CANT_CREATE, summary: 'another key owns this attempt directory' },
  STATE_UNSAFE: { exit: EXIT.CANT_CREATE, summary: 'a symlink, foreign owner or unexpected file type in the state root' },
  WRITE_FAILED: { exit: EXIT.CANT_CREATE, summary: 'a file could not be written' },
  OUTPUT_FAILED: { exit: EXIT.CANT_CREATE, summary: 'the records could not be written to stdout (not a closed pipe): they are incomplete' },
  INIT_FILE_EDITED: { exit: EXIT.CANT_CREATE, summary: 'a file admit init writes exists with other bytes (an edited file); --force replaces it' },
  OUTPUT_UNSAFE: { exit: EXIT.CANT_CREATE, summary: 'an output path names a file that is not this output, or lies in the checkout or the state root' },
  // environment
  GIT_FAILED: { exit: EXIT.NO_INPUT, summary: 'git failed or the source repository could not be read (extract-tree: fault)' },
  SANDBOX_UNAVAILABLE: { exit: EXIT.NO_PERM, summary: 'a sandbox primitive is missing or did not take' },
  SANDBOX_BIND_UNSAFE: { exit: EXIT.NO_PERM, summary: 'a sandbox bind source holds a socket, FIFO or device, or the sandbox user cannot read it' },
  RESOURCES_LOW: { exit: EXIT.TEMP, summary: 'available memory or free disk is below the 2 GiB floor' },
  // test runs that say nothing about the code (reproduce and verify end them as fault)
  TOOLCHAIN_UNSUPPORTED: { exit: EXIT.NO, summary: 'the tree needs a newer Go than the local toolchain can read' },
  GO_REPLACE_OUTSIDE_TREE: { exit: EXIT.NO, summary: 'a go.mod replaces a module with a directory outside the tree, which the sandbox does not show' },
  TESTS_NOT_RUN: { exit: EXIT.NO, summary: 'the test command ran zero tests' },
  EVENTS_EXIT_MISMATCH: { exit: EXIT.NO, summary: 'the exit code and the test events disagree' },
  RESOURCE_LIMIT_HIT: { exit: EXIT.NO, summary: 'the run hit the memory or tasks limit' },
  OUTPUT_LIMIT: { exit: EXIT.NO, summary: 'the run printed more than the output cap' },
  RUN_INCOMPLETE: { exit: EXIT.NO, summary: 'the test command was stopped or killed before it finished' },
  NOT_REPRODUCED: { exit: EXIT.NO, summary: "the case's identity did not fail on the baseline" },
  TEST_HOOKS_MISMATCH: { exit: EXIT.CONFIG, summary: 'REPAIRLINE_TEST_HOOKS=1 on an attempt admitted without test hooks' },
  HOSTILE_ENVIRONMENT: { exit: EXIT.CONFIG, summary: 'an environment variable that weakens TLS or leaks secrets is set' },
  // binding of retained inputs (ask-provider, readback)
  ATTEMPT_BINDING_MISMATCH: { exit: EXIT.DATA, summary: 'a retained input no longer hashes to the admitted key inputs' },
  // text contracts and rendering (rejected: exit 1 once the attempt is started)
  TEXT_CONTRACT_FAILED: { exit: EXIT.NO, summary: 'an owned text (job brief, scaffold, instructions) broke its register' },
  SUMMARY_CONTRACT_FAILED: { exit: EXIT.NO, summary: 'proposal.summary broke the return contract' },
  PROMPT_TOO_LARGE: { exit: EXIT.NO, summary: 'the prompt is over provider.max_input_bytes (refused, never truncated)' },
  PAYLOAD_NOT_TEXT: { exit: EXIT.NO, summary: 'an allowed file is not UTF-8 text and cannot be sent' },
  // verify: what it refuses to run, and the outcome codes it decides
  BASELINE_NOT_REPRODUCED: { exit: EXIT.DATA, summary: 'baseline.json shows no usable red run of the case: rerun reproduce (verify)' },
  GATE_NOT_PASSED: { exit: EXIT.DATA, summary: 'gate.json did not pass: only a gated candidate is verified (verify)' },
  CANDIDATE_MISMATCH: { exit: EXIT.DATA, summary: 'the candidate rebuilt from proposal.json differs from gate.json or candidate.patch (verify)' },
  RUN_NOT_COMPARABLE: { exit: EXIT.NO, summary: "the candidate's command or sandbox differs from the baseline's (verify: fault)" },
  VERIFY_FAILED: { exit: EXIT.NO, summary: 'the candidate ran and did not pass verification (verify: failed)' },
  // the one provider call (outcome provider_error; 69 when retryable, else 1)
  TOKEN_HELPER_FAILED: { exit: EXIT.NO, summary: 'the token helper failed, timed out, or printed no single printable line' },
  PROVIDER_CA_INVALID: { exit: EXIT.NO, summary: 'provider.ca_file cannot be read as PEM certificates' },
  DISPATCH_INTERRUPTED: { exit: EXIT.UNAVAILABLE, summary: 'the call was dispatched but no result was recorded; it is never sent twice' },
  PROVIDER_TIMEOUT: { exit: EXIT.UNAVAILABLE, summary: 'no connection, headers or complete body within the bounds, or the total deadline passed' },
  PROVIDER_TRANSPORT: { exit: EXIT.UNAVAILABLE, summary: 'the connection failed, was reset, or did not speak HTTP' },
  PROVIDER_TLS: { exit: EXIT.NO, summary: 'the server certificate did not verify' },
  PROVIDER_REDIRECT: { exit: EXIT.NO, summary: 'the server answered with a redirect, which is never followed' },
  PROVIDER_RATE_LIMITED: { exit: EXIT.UNAVAILABLE, summary: 'HTTP 429' },
  PROVIDER_SERVER_ERROR: { exit: EXIT.UNAVAILABLE, summary: 'HTTP 5xx' },
  PROVIDER_HTTP_ERROR: { exit: EXIT.NO, summary: 'a 4xx status other than 429, or another non-2xx status' },
  PROVIDER_RESPONSE_TOO_LARGE: { exit: EXIT.NO, summary: 'the response body is over the byte cap' },
  PROVIDER_ENCODING_REFUSED: { exit: EXIT.NO, summary: 'the response has a content-encoding other than identity' },
  PROVIDER_RESPONSE_INVALID: { exit: EXIT.NO, summary: 'the answer is not a usable Responses body (media type, JSON, shape, status)' },
  PROVIDER_FAILED: { exit: EXIT.NO, summary: 'the response has status failed' },
  PROVIDER_INCOMPLETE: { exit: EXIT.NO, summary: 'the answer is incomplete or truncated (status, reasoning only, output at the cap)' },
  PROVIDER_REFUSAL: { exit: EXIT.NO, summary: 'the model refused' },
  PROPOSAL_INVALID: { exit: EXIT.NO, summary: 'the answer is not JSON or breaks the proposal schema' },
  PROVIDER_ECHOED_TOKEN: { exit: EXIT.NO, summary: 'the answer echoed the provider token (in any encoding); it is never used' },
} as const satisfies Record<string, { exit: ExitCode; summary: string }>

export type KnownErrorCode = keyof typeof ERROR_CODES
/** Later issues add codes here; the literal union keeps matches exhaustive. */
export type ErrorCode = KnownErrorCode

export interface ToolErrorOptions<C extends ErrorCode> {
  code: C
  message: string
  /** Overrides the code's default exit status. */
  exit?: ExitCode
  /** A JSON pointer (into a config or record) or a file path. */
  path?: string
  hint?: string
  cause?: unknown
}

/** The one error class of the tools. Match on `code`. */
export class ToolError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C
  readonly exit: ExitCode
  readonly path: string | undefined
  readonly hint: string | undefined

  constructor (o: ToolErrorOptions<C>) {
    super(o.message, o.cause === undefined ? undefined : { cause: o.cause })
    this.name = 'ToolError'
    this.code = o.code
    this.exit = o.exit ?? ERROR_CODES[o.code].exit
    this.path = o.path
    this.hint = o.hint
  }
}

/** Shorthand constructor, so call sites read as one line. */
export function toolError<C extends ErrorCode> (code: C, message: string, extra: Omit<ToolErrorOptions<C>, 'code' | 'message'> = {}): ToolError<C> {
  return new ToolError({ code, message, ...extra })
}

/** True for any object carrying a known error code (works across bundles). */
export function isToolError (e: unknown): e is ToolError {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ToolError' &&
    typeof (e as { code?: unknown }).code === 'string' && (e as { code: string }).code in ERROR_CODES
}

/** True when `e` is a Node system error with the given errno code (ENOENT, EEXIST, …). */
export function hasErrno (e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code
}
