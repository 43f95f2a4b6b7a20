import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACT_DIRS } from "../shared/baton-paths.js";
import type { ArtifactNaming } from "./repository-conventions.js";

/**
 * How the repository names task folders and artifacts, learned from the folders it has: v2 is
 * `008_slug/reports/01_name.md` (zero-padded folders, one two-digit sequence per task), v1 is
 * `8_slug/reports/research-001.md`. A handful of folders decide; an empty store says nothing.
 */
export function learnArtifactNaming(specsDir: string): ArtifactNaming | null {
  const folders = taskFolders(specsDir);
  if (folders.some((name) => /^0\d{2,}_/.test(name))) return "v2";
  let v1 = 0;
  let v2 = 0;
  for (const folder of folders.slice(-8)) {
    for (const kind of [ARTIFACT_DIRS.research, ARTIFACT_DIRS.plan]) {
      for (const name of list(join(specsDir, folder, kind))) {
        if (/^\d{2}_.+\.md$/.test(name)) v2++;
        else if (/^(research|implementation)-\d{3}\.md$/.test(name)) v1++;
      }
    }
  }
  if (v1 === 0 && v2 === 0) return folders.some((name) => /^\d{1,2}_/.test(name)) ? "v1" : null;
  return v2 > v1 ? "v2" : "v1";
}

/** Task folders of the store and of its archive, oldest number first. */
function taskFolders(specsDir: string): string[] {
  const names = [...list(specsDir), ...list(join(specsDir, "archive"))].filter((n) => /^\d+_/.test(n));
  return names.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
