import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { onTestFinished } from "vitest";

/** The absolute form tests install, so Claude Code's Bash would find Baton without a PATH entry. */
export const TEST_BIN = `node ${resolve(import.meta.dirname, "../../bin/baton.js")}`;

/** A fresh git repository in a temp folder, removed when the current test finishes. */
export function tempRepo(prefix = "baton-init-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function readText(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}

/** Every file under `root` except .git, with its content, to prove a run wrote nothing. */
export function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const files = execFileSync("git", ["ls-files", "--others", "--cached", "-z"], {
    cwd: root,
    encoding: "utf8",
  });
  for (const path of files.split("\0").filter(Boolean)) out[path] = readText(root, path);
  return out;
}
