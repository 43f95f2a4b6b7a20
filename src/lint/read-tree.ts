import type { Dirent } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { runProcess } from "../shared/process.js";
import type { HostLayout } from "./host-layout.js";

// Generated or vendored folders inside a config tree are not configuration.
const SKIP_DIRS = new Set([".git", "node_modules"]);
// Larger files are data, not configuration; reading them would only slow the lint down.
const MAX_BYTES = 2 * 1024 * 1024;

/** One file of a host's tree, or of its settings or memory files at the root. */
export interface RawFile {
  path: string;
  text: string;
  executable: boolean;
}

/** Every file of every host's tree, and those it reads at the root (opencode.json, CLAUDE.md), read once, in parallel. */
export async function readTrees(root: string, layout: HostLayout): Promise<RawFile[]> {
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const tree of layout.trees) await walk(root, tree, paths, seen);
  for (const name of layout.rootFiles) {
    if (
      await stat(join(root, name)).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      paths.push(name);
  }
  return Promise.all(paths.map((path) => readRaw(root, path)));
}

async function walk(root: string, dir: string, out: string[], seen: Set<string>): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  await Promise.all(
    entries.map(async (entry) => {
      const path = `${dir}/${entry.name}`;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        // Claude Code follows links (shared agents are often symlinked in); a broken one is skipped.
        const target = await stat(join(root, path)).catch(() => null);
        isDir = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
        if (isDir) {
          const real = await realpath(join(root, path));
          if (seen.has(real)) return;
          seen.add(real);
        }
      }
      if (isDir && !SKIP_DIRS.has(entry.name)) await walk(root, path, out, seen);
      else if (isFile) out.push(path);
    }),
  );
}

async function readRaw(root: string, path: string): Promise<RawFile> {
  const absolute = join(root, path);
  const info = await stat(absolute);
  const executable = (info.mode & 0o111) !== 0;
  if (info.size > MAX_BYTES) return { path, text: "", executable };
  const buffer = await readFile(absolute);
  // Binary files (images, archives) carry NUL bytes; their text would only produce noise.
  const text = buffer.subarray(0, 8000).includes(0) ? "" : buffer.toString("utf8");
  return { path, text, executable };
}

/**
 * One `git ls-files -s -z` for the whole root: the tracked set and the index's executable bits. Run in the
 * root itself, so paths come out relative to it even when the root is a subfolder of the work tree.
 */
export async function gitFacts(
  root: string,
): Promise<{ tracked: Set<string> | null; trackedExecutable: Set<string> | null }> {
  const result = await runProcess({
    command: "git",
    args: ["ls-files", "-s", "-z"],
    cwd: root,
    timeoutMs: 30_000,
    tailBytes: 256 * 1024 * 1024,
  });
  if (!result.ok) return { tracked: null, trackedExecutable: null };
  const tracked = new Set<string>();
  const trackedExecutable = new Set<string>();
  for (const record of result.stdout.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab === -1) continue;
    const path = record.slice(tab + 1);
    tracked.add(path);
    if (record.startsWith("100755")) trackedExecutable.add(path);
  }
  return { tracked, trackedExecutable };
}
