import { realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ArtifactNaming } from "../config/index.js";
import { BATON_DIR, storeInternalPaths } from "../shared/baton-paths.js";
import { FileFormatError } from "../shared/errors.js";

export interface SpecsPaths {
  dir: string;
  state: string;
  todo: string;
  errors: string;
  archiveDir: string;
  archiveState: string;
  changeLog: string;
  roadMap: string;
  /** Baton's own control files (lock, write journal); ignored by git through its own .gitignore. */
  internalDir: string;
  lock: string;
  journal: string;
}

export function specsPaths(specsDir: string): SpecsPaths {
  const internalDir = join(specsDir, BATON_DIR);
  return {
    dir: specsDir,
    state: join(specsDir, "state.json"),
    todo: join(specsDir, "TODO.md"),
    errors: join(specsDir, "errors.json"),
    archiveDir: join(specsDir, "archive"),
    archiveState: join(specsDir, "archive", "state.json"),
    changeLog: join(specsDir, "CHANGE_LOG.md"),
    roadMap: join(specsDir, "ROAD_MAP.md"),
    internalDir,
    lock: storeInternalPaths(internalDir).lock,
    journal: storeInternalPaths(internalDir).journal,
  };
}

/**
 * A path recorded in the store (an artifact's), as a file of the repository: relative to the root, and
 * inside it once every link on the way is resolved. One that leads elsewhere (`../x`, an absolute path, a
 * link out) is refused naming what recorded it, before Baton reads or writes through it.
 */
export function recordedPath(root: string, path: string, recordedBy: string): string {
  const full = isAbsolute(path) ? path : resolve(root, path);
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const base = real(root);
  const target = real(full);
  const rel = relative(base, target);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new FileFormatError(
      "STATE_SCHEMA",
      "state.json",
      `${recordedBy}: the path ${JSON.stringify(path)} leads out of the repository (${target}); Baton reads and writes only files inside it`,
      { hint: "Record the file by its path inside the repository, or remove the link." },
    );
  }
  return full;
}

/** Task folders are `{N}_{slug}` (v1) or `{NNN}_{slug}` (v2); both are matched when reading. */
export const TASK_FOLDER = /^(\d+)_(.+)$/;

/**
 * A task's folder name, `{N}_{slug}` (v1) or `{NNN}_{slug}` (v2): the one way a `project_name` from
 * state.json — repository data, which anyone can commit — becomes part of a path. A name that would lead out
 * of its folder (a `/` or `\\`), or hold a control character, is refused naming the task and the field,
 * before any path is made of it.
 */
export function taskFolderName(number: number, slug: string, naming: ArtifactNaming): string {
  if (typeof slug !== "string" || slug === "" || /[/\\\u0000-\u001f\u007f]/.test(slug)) {
    throw new FileFormatError(
      "STATE_SCHEMA",
      "state.json",
      `task ${number}: project_name ${JSON.stringify(slug)} is not a folder name (it holds a path separator or a control character, so it would lead out of the task store)`,
      {
        hint: `Set a plain name with \`baton task edit ${number} --title …\` or edit project_name in state.json.`,
      },
    );
  }
  return naming === "v2" ? `${String(number).padStart(3, "0")}_${slug}` : `${number}_${slug}`;
}

/** The task store's folder as a repository-relative prefix (`specs`): Baton's own files, never work. */
export function storePrefix(root: string, specsDir: string): string {
  return relative(root, specsDir).split(sep).join("/");
}
