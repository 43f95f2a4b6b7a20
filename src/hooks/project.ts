import { readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import {
  BATON_DIR,
  batonPaths,
  CONFIG_FILE_NAMES,
  INIT_MANIFEST,
  LOOP_GUARD_FILE,
  MARKER_FILE,
  storeInternalPaths,
} from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import type { OpenCheckpoint } from "../state/index.js";

/**
 * Where a hook works. Hooks run on every tool call, so this reads only what a decision needs and
 * never loads the config module: `specsDir` is taken from `baton.config.json` (or a YAML config's
 * top-level `specsDir:` line) directly, and the checkpoint files are checked by hand.
 */
export interface Project {
  root: string;
  specsDir: string;
}

/** Claude Code sets CLAUDE_PROJECT_DIR for command hooks; HTTP hooks only have the input's `cwd`. */
export function resolveProject(cwd: string, projectDir: string | undefined): Project {
  const root = projectDir ? resolve(projectDir) : findRoot(cwd);
  return { root, specsDir: readSpecsDir(root) };
}

/**
 * The Baton repository a hook input's `cwd` is in: the nearest folder up from it that Baton was set up in
 * (`baton init`'s manifest, a Baton config, or a task store); null when there is none. The input is
 * data anyone can send: a folder named by it is never where Baton writes unless it is such a repository.
 */
export function batonRepositoryOf(cwd: string): string | null {
  return nearestHolding(cwd, [INIT_MANIFEST, ...CONFIG_FILE_NAMES, join("specs", "state.json")]);
}

/** Whether `path` is `root` or inside it (both resolved as given). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The nearest folder from `start` up that holds one of `names`; null when none does. */
function nearestHolding(start: string, names: readonly string[]): string | null {
  let dir = resolve(start);
  for (;;) {
    if (names.some((name) => present(join(dir, name)))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The nearest folder with a baton config, `specs/` or `.git`: the model may have `cd`-ed below the root. */
function findRoot(start: string): string {
  return nearestHolding(start, [...CONFIG_FILE_NAMES, "specs", ".git"]) ?? resolve(start);
}

function readOptional(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

export function readSpecsDir(root: string): string {
  let specs: unknown;
  const json = readOptional(join(root, CONFIG_FILE_NAMES[0]!));
  if (json !== null) {
    try {
      specs = (JSON.parse(json) as { specsDir?: unknown }).specsDir;
    } catch {
      // A broken config is reported by every other baton command; the hook keeps the default.
    }
  } else {
    for (const name of CONFIG_FILE_NAMES.slice(1)) {
      const yaml = readOptional(join(root, name));
      const match =
        yaml === null ? null : /^specsDir:[ \t]*(["']?)([^"'#\r\n]+?)\1[ \t]*(?:#.*)?$/m.exec(yaml);
      if (match) specs = match[2];
      if (yaml !== null) break;
    }
  }
  const dir = typeof specs === "string" && specs.trim() !== "" ? specs.trim() : "specs";
  return isAbsolute(dir) ? dir : join(root, dir);
}

/** Mirror of the `OpenCheckpoint` schema's fields a hook reads (differential test in project.test.ts). */
export function isOpenCheckpoint(v: unknown): v is OpenCheckpoint {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  const str = (x: unknown) => typeof x === "string";
  const optStr = (x: unknown) => x === undefined || typeof x === "string";
  const num = (x: unknown) => typeof x === "number" && !Number.isNaN(x);
  return (
    str(c["sessionId"]) &&
    num(c["taskNumber"]) &&
    str(c["operation"]) &&
    str(c["previousStatus"]) &&
    optStr(c["previousSessionId"]) &&
    num(c["pid"]) &&
    str(c["hostname"]) &&
    str(c["startedAt"]) &&
    (c["mode"] === undefined || c["mode"] === "headless" || c["mode"] === "session") &&
    optStr(c["claudeSessionId"]) &&
    optStr(c["agent"])
  );
}

export interface CheckpointFile {
  path: string;
  checkpoint: OpenCheckpoint;
  /** The file's text, so an update can keep its formatting. */
  text: string;
}

export function checkpointsDir(project: Project): string {
  return storeInternalPaths(join(project.specsDir, BATON_DIR)).checkpoints;
}

/** Every readable open checkpoint; a malformed file is skipped (doctor and GATE IN report it). */
export function listCheckpoints(project: Project): CheckpointFile[] {
  let names: string[];
  try {
    names = readdirSync(checkpointsDir(project));
  } catch {
    return [];
  }
  const found: CheckpointFile[] = [];
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue;
    const path = join(checkpointsDir(project), name);
    const text = readOptional(path);
    if (text === null) continue;
    try {
      const checkpoint: unknown = JSON.parse(text);
      if (isOpenCheckpoint(checkpoint)) found.push({ path, checkpoint, text });
    } catch {
      // half-written or hand-broken: not a delegation a hook can act on
    }
  }
  return found.sort((a, b) => a.checkpoint.taskNumber - b.checkpoint.taskNumber);
}

/**
 * Session-mode checkpoints that bind this Claude session: opened in it, or not yet bound to any
 * session (gate-in ran without CLAUDE_CODE_SESSION_ID and the binding hook has not seen it yet).
 */
export function delegationsOf(project: Project, claudeSessionId: string): CheckpointFile[] {
  return listCheckpoints(project).filter(
    ({ checkpoint: c }) =>
      c.mode === "session" && (c.claudeSessionId === undefined || c.claudeSessionId === claudeSessionId),
  );
}

/** Task folders `{N}_{slug}` and `{NNN}_{slug}` of one task number. */
export function taskFolders(project: Project, taskNumber: number): string[] {
  let names: string[];
  try {
    names = readdirSync(project.specsDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const match = /^(\d+)_./.exec(name);
      return match !== null && Number(match[1]) === taskNumber;
    })
    .map((name) => join(project.specsDir, name));
}

/** The marker gate-in writes into the task folder (MARKER_FILE). */
export interface PostflightMarker {
  session_id?: string;
  skill?: string;
  task_number?: number;
  operation?: string;
  reason?: string;
  claude_session_id?: string;
  [key: string]: unknown;
}

export interface MarkerFile {
  path: string;
  folder: string;
  marker: PostflightMarker;
  text: string;
}

export { LOOP_GUARD_FILE as LOOP_GUARD, MARKER_FILE as MARKER };

export function readMarker(folder: string): MarkerFile | null {
  const path = join(folder, MARKER_FILE);
  const text = readOptional(path);
  if (text === null) return null;
  try {
    const marker: unknown = JSON.parse(text);
    if (typeof marker !== "object" || marker === null || Array.isArray(marker)) return null;
    return { path, folder, marker: marker as PostflightMarker, text };
  } catch {
    return null;
  }
}

export function readJsonFile(path: string): unknown {
  const text = readOptional(path);
  if (text === null) return undefined;
  try {
    // An editor may leave a byte order mark; JSON.parse rejects it.
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
}

/**
 * The command a hook's message tells the agent to run, spelled as `baton init` installed it (its
 * manifest's `bin`, e.g. `node /path/bin/baton.js`), since `baton` need not be on the agent's PATH.
 */
export function batonCommand(project: Project): string {
  const bin = (readJsonFile(batonPaths(project.root).initManifest) as { bin?: unknown } | undefined)?.bin;
  return typeof bin === "string" && bin.trim() !== "" ? bin : "baton";
}
