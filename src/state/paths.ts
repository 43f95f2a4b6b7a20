import { join, relative, sep } from "node:path";
import { BATON_DIR, storeInternalPaths } from "../shared/baton-paths.js";

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

/** Task folders are `{N}_{slug}` (v1) or `{NNN}_{slug}` (v2); both are matched when reading. */
export const TASK_FOLDER = /^(\d+)_(.+)$/;

export function taskFolderName(number: number, slug: string, naming: "v1" | "v2"): string {
  return naming === "v2" ? `${String(number).padStart(3, "0")}_${slug}` : `${number}_${slug}`;
}

/** The task store's folder as a repository-relative prefix (`specs`): Baton's own files, never work. */
export function storePrefix(root: string, specsDir: string): string {
  return relative(root, specsDir).split(sep).join("/");
}
