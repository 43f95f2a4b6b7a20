import { describe, expect, it } from "vitest";
import { fileSystemFailure, IoError, withPath } from "./errors.js";

/** A failure as node reports it: an open file's write names no path, an open names one. */
function errno(code: string, syscall: string, path?: string): NodeJS.ErrnoException {
  const error = new Error(`${code}: failed, ${syscall}`) as NodeJS.ErrnoException;
  error.code = code;
  error.syscall = syscall;
  if (path) error.path = path;
  return error;
}

describe("a resource failure of the machine is IO_FAILURE naming the file and the operation", () => {
  for (const [code, what] of [
    ["ENOSPC", "no space left on the device"],
    ["EDQUOT", "disk quota exceeded"],
    ["EROFS", "read-only file system"],
    ["EMFILE", "too many open files"],
    ["ENFILE", "too many open files on this system"],
    ["EIO", "an input/output error of the device"],
  ] as const) {
    it(`${code} on a write that names no path, once the writer adds it`, () => {
      const failure = fileSystemFailure(withPath(errno(code, "write"), "/repo/specs/state.json"));
      expect(failure).toBeInstanceOf(IoError);
      expect(failure?.code).toBe("IO_FAILURE");
      expect(failure?.retryable).toBe(true);
      expect(failure?.message).toBe(`IO_FAILURE: cannot write /repo/specs/state.json: ${what} (${code})`);
      expect(failure?.cause).toBeInstanceOf(Error);
    });
  }

  it("a failure no writer named still maps (never an unexpected failure), and says its path is unknown", () => {
    expect(fileSystemFailure(errno("ENOSPC", "fsync"))?.message).toBe(
      "IO_FAILURE: cannot fsync a file (its path was not reported): no space left on the device (ENOSPC)",
    );
  });

  it("withPath keeps a path node already reported, and leaves other errors alone", () => {
    const opened = errno("EROFS", "open", "/ro/specs/TODO.md");
    expect((withPath(opened, "/elsewhere") as NodeJS.ErrnoException).path).toBe("/ro/specs/TODO.md");
    const plain = new Error("not a system error");
    expect(withPath(plain, "/x")).toBe(plain);
    expect(fileSystemFailure(plain)).toBe(null);
  });
});
