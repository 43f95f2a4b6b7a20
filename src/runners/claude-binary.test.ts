import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { findOnPath, locateBundledClaude, locateClaude } from "./claude-binary.js";

const dir = mkdtempSync(join(tmpdir(), "baton-claude-binary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, mode: number): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, mode);
  return path;
}

const noExec = join(dir, "noexec");
const bin = join(dir, "bin");
file(join(noExec, "claude"), 0o644);
mkdirSync(join(dir, "isdir", "claude"), { recursive: true });
const onPath = file(join(bin, "claude"), 0o755);
const local = file(join(dir, "repo", "tools", "claude"), 0o755);
const nowhere = ["@anthropic-ai/claude-agent-sdk-plan9-x64"];

describe("PATH lookup", () => {
  test("the first executable file wins; non-executables, folders and relative entries are skipped", () => {
    const path = ["", "relative/bin", noExec, join(dir, "isdir"), bin].join(delimiter);
    expect(findOnPath("claude", path)).toBe(onPath);
    expect(findOnPath("claude", [noExec].join(delimiter))).toBeNull();
    expect(findOnPath("claude", undefined)).toBeNull();
  });
});

describe("locateClaude", () => {
  test("a configured path resolves against the base dir and beats PATH", () => {
    expect(locateClaude({ binary: "tools/claude", baseDir: join(dir, "repo"), pathValue: bin })).toEqual({
      path: local,
      source: "config",
    });
    expect(locateClaude({ binary: local, pathValue: bin })).toEqual({ path: local, source: "config" });
  });

  test("a configured command name is searched on PATH", () => {
    expect(locateClaude({ binary: "claude", pathValue: bin })).toEqual({ path: onPath, source: "config" });
  });

  test("a configured binary that is missing is an error, not a fallback", () => {
    expect(locateClaude({ binary: "./nope", baseDir: dir, pathValue: bin })).toEqual({
      path: null,
      message: `Claude Code binary ${join(dir, "nope")} (runner option "binary") does not exist or is not executable`,
    });
    expect(locateClaude({ binary: "claude-nightly", pathValue: bin })).toEqual({
      path: null,
      message: 'Claude Code binary "claude-nightly" (runner option "binary") is not on PATH',
    });
  });

  test("without configuration: PATH first, then the SDK's bundled copy", () => {
    expect(locateClaude({ pathValue: bin })).toEqual({ path: onPath, source: "path" });
    const bundled = locateBundledClaude();
    if (bundled.path !== null) {
      expect(locateClaude({ pathValue: noExec })).toEqual({ path: bundled.path, source: "bundled" });
    }
  });

  test("nothing found: the message says how to install or configure", () => {
    const found = locateClaude({ pathValue: noExec, packages: nowhere });
    expect(found.path).toBeNull();
    expect(found).toMatchObject({
      message: expect.stringMatching(
        /^Claude Code not found: `claude` is not on PATH and no bundled copy is usable \(.*plan9-x64\/claude: MODULE_NOT_FOUND.*\); install Claude Code \(npm install -g @anthropic-ai\/claude-code\).*"binary" option/,
      ),
    });
  });
});
