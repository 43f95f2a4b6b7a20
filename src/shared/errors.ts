/**
 * Every failure Baton reports goes through these classes so that callers (the CLI, hooks, the engine)
 * can branch on a stable `code` and know whether retrying may help.
 */
export type ErrorCode =
  | "CONFIG_INVALID"
  | "STATE_PARSE"
  | "STORE_UNREADABLE"
  | "STATE_SCHEMA"
  | "TODO_PARSE"
  | "DUPLICATE_TASK"
  | "IRREGULAR_ENTRY"
  | "TASK_NOT_FOUND"
  | "NO_STORE"
  | "NOT_A_REPOSITORY"
  | "STORE_NOT_CHECKED_OUT"
  | "INVALID_TRANSITION"
  | "INVALID_ARGUMENT"
  | "LOCK_TIMEOUT"
  | "ARCHIVE_CONFLICT"
  | "PLAN_INVALID"
  | "PLAN_UNREADABLE"
  | "STORE_CHANGED"
  | "BUDGET_EXCEEDED"
  | "SANDBOX_UNAVAILABLE"
  | "IO_FAILURE";

export interface BatonErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  /** What the user can do about it, printed after the message. */
  hint?: string;
}

export class BatonError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: BatonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.hint = options.hint;
  }
}

export class ConfigError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("CONFIG_INVALID", message, options);
  }
}

/** A file Baton reads is malformed; `location` is `file:line:column` or `file: entry …`. */
export class FileFormatError extends BatonError {
  readonly file: string;
  constructor(
    code:
      | "STATE_PARSE"
      | "STORE_UNREADABLE"
      | "STATE_SCHEMA"
      | "TODO_PARSE"
      | "DUPLICATE_TASK"
      | "IRREGULAR_ENTRY",
    file: string,
    message: string,
    options: BatonErrorOptions = {},
  ) {
    super(code, message, options);
    this.file = file;
  }
}

/** A plan that cannot drive execution; every problem names its line, and nothing has run. */
export class PlanFormatError extends BatonError {
  readonly file: string;
  readonly problems: { line: number; message: string; code?: string }[];
  constructor(
    file: string,
    problems: { line: number; message: string; code?: string }[],
    options: BatonErrorOptions = {},
  ) {
    // A heading meant as a phase that cannot be read is named apart: run anyway, the plan would run short.
    super(
      problems.some((p) => p.code === "PLAN_UNREADABLE") ? "PLAN_UNREADABLE" : "PLAN_INVALID",
      `${file} cannot be run:\n${problems.map((p) => `  ${file}:${p.line}: ${p.message}`).join("\n")}`,
      options,
    );
    this.file = file;
    this.problems = problems;
  }
}

export class TaskNotFoundError extends BatonError {
  readonly taskNumber: number;
  constructor(taskNumber: number, where: string, options: BatonErrorOptions & { message?: string } = {}) {
    super("TASK_NOT_FOUND", options.message ?? `task ${taskNumber} not found in ${where}`, options);
    this.taskNumber = taskNumber;
  }
}

/** A command that reads or runs tasks, where there is no task store (or no repository) to act on. */
export class NothingHereError extends BatonError {
  constructor(code: "NO_STORE" | "NOT_A_REPOSITORY", message: string, options: BatonErrorOptions = {}) {
    super(code, message, options);
  }
}

/**
 * One exit code per kind of outcome, whatever the command: 0 done, 1 refused or failed (the message says
 * why), 2 bad usage, 3 nothing to act on (no such task, no task store, not a git repository).
 */
export const EXIT_CODES = { done: 0, refused: 1, usage: 2, nothingHere: 3 } as const;

export function exitCodeOf(error: BatonError): number {
  if (error.code === "INVALID_ARGUMENT") return EXIT_CODES.usage;
  if (error.code === "TASK_NOT_FOUND" || error.code === "NO_STORE" || error.code === "NOT_A_REPOSITORY") {
    return EXIT_CODES.nothingHere;
  }
  return EXIT_CODES.refused;
}

/**
 * The repository keeps a task store that the work tree does not have (a sparse checkout leaves it out, or it
 * was deleted): starting another one here would number tasks from 1 beside the committed store.
 */
export class StoreNotCheckedOutError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("STORE_NOT_CHECKED_OUT", message, options);
  }
}

export class TransitionError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("INVALID_TRANSITION", message, options);
  }
}

export class UsageError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("INVALID_ARGUMENT", message, options);
  }
}

export class LockTimeoutError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("LOCK_TIMEOUT", message, { retryable: true, ...options });
  }
}

/** A store file edited outside Baton and not yet accepted: Baton writes nothing until a person decides. */
export class StoreChangedError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("STORE_CHANGED", message, options);
  }
}

/** A spending limit would be crossed: nothing started, and raising the limit lets the same command go on. */
export class BudgetExceededError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("BUDGET_EXCEEDED", message, options);
  }
}

/** bubblewrap cannot start here, so no agent may be started: installing or allowing it lets the same command go on. */
export class SandboxUnavailableError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("SANDBOX_UNAVAILABLE", message, options);
  }
}

export class IoError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super("IO_FAILURE", message, { retryable: true, ...options });
  }
}

export function isBatonError(error: unknown): error is BatonError {
  return error instanceof BatonError;
}

/** 1-based line and column of a character offset, for messages like `state.json:12:5`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

const FS_FAILURES: Record<string, { what: string; hint: string }> = {
  EACCES: {
    what: "permission denied",
    hint: "Make it writable for this user (chmod/chown), or run Baton as its owner; nothing was changed.",
  },
  EPERM: {
    what: "operation not permitted",
    hint: "Make it writable for this user (chmod/chown), or run Baton as its owner; nothing was changed.",
  },
  EROFS: {
    what: "read-only file system",
    hint: "Read commands and --dry-run work here; run writing commands where the repository is writable.",
  },
  ENOSPC: { what: "no space left on the device", hint: "Free some space and run the command again." },
  EDQUOT: { what: "disk quota exceeded", hint: "Free some space and run the command again." },
  EMFILE: { what: "too many open files", hint: "Raise the open-file limit (ulimit -n) and try again." },
  ENFILE: {
    what: "too many open files on this system",
    hint: "Close other programs' files or raise the system's limit, and try again.",
  },
  EIO: { what: "an input/output error of the device", hint: "Check the disk, then run the command again." },
  EFBIG: { what: "the file is too large for this file system", hint: "Check the file's size." },
  EISDIR: { what: "is a directory", hint: "Move the directory out of the way; Baton needs a file there." },
  ENOTDIR: {
    what: "a path component is not a directory",
    hint: "Check the path; a file is where a folder should be.",
  },
};

/** Claude Code marks the commands its sandbox runs (`SANDBOX_RUNTIME=1`); there a refused write is the sandbox's. */
const inHostSandbox = (code: string | undefined) =>
  process.env["SANDBOX_RUNTIME"] === "1" && (code === "EROFS" || code === "EPERM" || code === "EACCES");
const HOST_SANDBOX_HINT =
  "This command ran inside Claude Code's sandbox, where the task store, .git and Baton's files are read-only. Reads work here; a Baton command that writes leaves the sandbox only when run exactly as printed, alone (`baton gate-out <operation> N --session <id>`, no `cd`, `&&`, pipe or substitution around it). Nothing was changed.";

/**
 * A file-system failure as a BatonError that names the path and says what to do (permission denied on a
 * read-only specs/, a full disk, …); null for anything that is not one.
 */
export function fileSystemFailure(error: unknown): IoError | null {
  if (!(error instanceof Error) || isBatonError(error)) return null;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  const known = code === undefined ? undefined : FS_FAILURES[code];
  if (!known) return null;
  // Only a failure of an open file (write, fsync) comes without its path: Baton's writers add it (withPath).
  const where = path ?? "a file (its path was not reported)";
  return new IoError(`IO_FAILURE: cannot ${syscall ?? "access"} ${where}: ${known.what} (${code})`, {
    cause: error,
    hint: inHostSandbox(code) ? HOST_SANDBOX_HINT : known.hint,
  });
}

/**
 * A failure on an open file descriptor (write, fsync, close) names no path: the writer that knows it adds
 * it, so a full disk is reported as the file it stopped. Returns the same error, for `throw withPath(…)`.
 */
export function withPath(error: unknown, path: string): unknown {
  const errno = error as NodeJS.ErrnoException | null;
  if (errno && typeof errno === "object" && typeof errno.code === "string" && errno.path === undefined) {
    errno.path = path;
  }
  return error;
}
