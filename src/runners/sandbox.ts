import { lstatSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { present } from "../shared/present.js";

/**
 * Where a process Baton starts may write: the work trees it is given, its HOME and the temp folders, and
 * nothing else of the file system (the rest is bound read-only: `/usr`, `/etc`, an interpreter's
 * site-packages, `/usr/local/bin` stay as they were, even for root). Within those, what it may not touch: the
 * paths it sees read-only (git history, the task store, Baton's own files), the ones it does not see at all
 * (Baton's signing key), and, by construction, no process of its outlives it (its own PID namespace, which
 * the kernel empties when its first process ends).
 */
export interface SandboxPolicy {
  /** The trees it works in (the repository, a phase's worktree, a check's verdict tree): writable. */
  workTrees?: readonly string[];
  /** Bound read-only over themselves; a path that does not exist is skipped. */
  readOnly: readonly string[];
  /** Writable again although inside a read-only path (a phase's worktree lives in git's own folder). */
  writable?: readonly string[];
  /**
   * Folders whose entries the agent may not add, remove or replace: bound read-only, each file in them
   * writable again unless it is in `readOnly`, and of their folders only `workFolders`. The store's folder is
   * one: Baton replaces its files by rename while agents run, and the kernel drops a bind whose file was
   * replaced; a folder's bind stays.
   */
  frozen?: readonly string[];
  /** The folders inside a frozen folder the agent works in (its task folder): made when missing, writable. */
  workFolders?: readonly string[];
  /** Replaced by an empty folder. */
  hidden: readonly string[];
  /** Files that read empty (and cannot be written): what a run changed outside the repository, for a check. */
  emptied?: readonly string[];
  /** A network of its own with only a loopback: nothing outside reached, not even this machine's servers. */
  isolateNetwork?: boolean;
  /** The repository-relative paths it protects, for a sandbox made on another machine (a queue worker). */
  protect?: readonly string[];
  /** The repository-relative folders it freezes, likewise. */
  protectFolders?: readonly string[];
}

/**
 * The command line that runs `command` inside the sandbox: the whole file system as it is, then the
 * read-only and hidden paths over it, a PID namespace of its own with a fresh /proc, and the sandbox
 * ending with Baton (a killed Baton takes its agent with it).
 */
export function sandboxed(
  policy: SandboxPolicy,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  binary = process.env["BATON_BWRAP"] ?? "bwrap",
): { command: string; args: string[] } {
  const wrap = ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev"];
  for (const path of openPlaces(policy, env)) wrap.push("--bind", path, path);
  for (const dir of policy.workFolders ?? []) mkdirSync(dir, { recursive: true });
  const frozen = [...new Set(policy.frozen ?? [])].filter((path) => present(path));
  const protectedPaths = new Set(policy.readOnly);
  const inside = (path: string, dir: string) => path.startsWith(`${dir}/`);
  const existing = [...protectedPaths].filter((path) => present(path));
  // An entry of a frozen folder is protected by the folder's bind, which no rename drops, not by its own;
  // a path deeper in one (the marker in the task folder) is bound once the folders are in place.
  const readOnly = existing.filter((path) => !frozen.some((dir) => inside(path, dir)));
  const deeper = existing.filter((path) => frozen.some((dir) => inside(path, dir) && dirname(path) !== dir));
  const writable = [...new Set(policy.writable ?? [])].filter((path) => present(path));
  // Read-only first; a writable folder inside one is bound again; what is protected inside that, once more.
  for (const path of readOnly) wrap.push("--ro-bind", path, path);
  for (const path of writable) wrap.push("--bind", path, path);
  for (const path of readOnly)
    if (writable.some((dir) => inside(path, dir))) wrap.push("--ro-bind", path, path);
  for (const folder of frozen) {
    wrap.push("--ro-bind", folder, folder);
    for (const file of filesIn(folder)) if (!protectedPaths.has(file)) wrap.push("--bind", file, file);
    for (const dir of policy.workFolders ?? []) if (inside(dir, folder)) wrap.push("--bind", dir, dir);
  }
  for (const path of deeper) wrap.push("--ro-bind", path, path);
  for (const path of new Set(policy.hidden)) if (present(path)) wrap.push("--tmpfs", path);
  for (const path of new Set(policy.emptied ?? []))
    if (present(path)) wrap.push("--ro-bind", "/dev/null", path);
  // fd 3 (see runSandboxed): bubblewrap writes its command's exit code there only once that command started.
  if (policy.isolateNetwork) wrap.push("--unshare-net");
  wrap.push("--unshare-pid", "--die-with-parent", "--proc", "/proc", "--json-status-fd", "3");
  wrap.push("--", command, ...args);
  return { command: binary, args: wrap };
}

/**
 * The places a sandboxed process may write, as the kernel names them (a link resolved): its work trees, its
 * HOME (where its tools keep their state and caches; what a run changes there is not the checks', see
 * engine/gate-out/changed-outside.ts), the temp folders, and the runtime folder of its session.
 */
function openPlaces(policy: SandboxPolicy, env: NodeJS.ProcessEnv): string[] {
  const named = [
    ...(policy.workTrees ?? []),
    env["HOME"] ?? process.env["HOME"],
    env["TMPDIR"],
    env["XDG_RUNTIME_DIR"],
    tmpdir(),
    "/tmp",
    "/var/tmp",
  ];
  const places = new Set<string>();
  for (const path of named) {
    if (!path || !isAbsolute(path)) continue;
    try {
      places.add(realpathSync(path));
    } catch {
      // Not there: nothing to write in.
    }
  }
  // Shallower first: a bind of a folder inside another must come after it, or the outer one covers it.
  return [...places].sort((a, b) => a.split("/").length - b.split("/").length);
}

/**
 * The files in `folder` (a symbolic link is left as it is: bound read-only itself, it still leads where it
 * led). One that goes while this runs is skipped; one that goes later fails the setup, which is tried again
 * (sandbox-run.ts).
 */
function filesIn(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .map((name) => join(folder, name))
    .filter((path) => {
      try {
        return lstatSync(path).isFile();
      } catch {
        return false;
      }
    });
}
