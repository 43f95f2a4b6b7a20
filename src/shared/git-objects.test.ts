import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readObjects } from "./git-objects.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const git = (args: string[]) => execFileSync("git", args, { cwd: dir });

/** Files whose bytes a text decoding or a line-based reading would get wrong, committed. */
const FILES: Record<string, Buffer> = {
  "plain.md": Buffer.from("# Title\n\nSome text.\n"),
  "utf8.md": Buffer.from("naïve — 日本語 ✓\n"),
  // Invalid UTF-8, NUL bytes, and a line that reads like a batch header of its own.
  "binary.bin": Buffer.concat([
    Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a]),
    Buffer.from(`${"a".repeat(40)} blob 3\nxyz\n`),
  ]),
  "empty.txt": Buffer.alloc(0),
  "no-newline.txt": Buffer.from("last line without a newline"),
  "dir/with space.txt": Buffer.from("spaced\n"),
  "line\nbreak.txt": Buffer.from("a name with a line break\n"),
};

function committed(): string {
  dir = mkdtempSync(join(tmpdir(), "baton-git-objects-"));
  git(["init", "-q", "-b", "main"]);
  mkdirSync(join(dir, "dir"));
  for (const [path, bytes] of Object.entries(FILES)) writeFileSync(join(dir, path), bytes);
  git(["add", "-A"]);
  git(["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files"]);
  return git(["rev-parse", "HEAD"]).toString().trim();
}

describe("readObjects", () => {
  it("reads many objects by name in one batch: each with git's id, type and exact bytes", async () => {
    const commit = committed();
    const names = Object.keys(FILES).map((path) => `${commit}:${path}`);
    const objects = await readObjects(dir, [...names, `${commit}:missing.md`, "HEAD:plain.md"]);
    expect(objects).not.toBeNull();
    for (const [path, bytes] of Object.entries(FILES)) {
      const object = objects!.get(`${commit}:${path}`);
      expect(object?.bytes.equals(bytes), path).toBe(true);
      expect(object?.type).toBe("blob");
      expect(object?.oid).toBe(
        git(["rev-parse", `${commit}:${path}`])
          .toString()
          .trim(),
      );
    }
    expect(objects!.get(`${commit}:missing.md`)).toBeNull();
    expect(objects!.get("HEAD:plain.md")?.bytes.toString()).toBe("# Title\n\nSome text.\n");
  });

  it("reads objects by id, and a name repeated or unknown does not shift the others", async () => {
    const commit = committed();
    const id = (path: string) =>
      git(["rev-parse", `${commit}:${path}`])
        .toString()
        .trim();
    const asked = [id("utf8.md"), "0".repeat(40), id("binary.bin"), id("utf8.md"), "nonsense"];
    const objects = await readObjects(dir, asked);
    expect(objects!.get(id("utf8.md"))?.bytes.equals(FILES["utf8.md"]!)).toBe(true);
    expect(objects!.get(id("binary.bin"))?.bytes.equals(FILES["binary.bin"]!)).toBe(true);
    expect(objects!.get("0".repeat(40))).toBeNull();
    expect(objects!.get("nonsense")).toBeNull();
  });

  it("answers null where git cannot run in the folder, rather than reporting every object missing", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-git-objects-"));
    expect(await readObjects(dir, ["HEAD:plain.md"])).toBeNull();
  });
});
