import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { ArtifactNaming } from "../config/index.js";
import { ARTIFACT_DIRS } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import { recordedPath, taskFolderName } from "./paths.js";
import type { TaskEntry } from "./store-schema.js";

export { ARTIFACT_DIRS };
export type ArtifactKind = keyof typeof ARTIFACT_DIRS;

const V1_NAMES: Record<ArtifactKind, { prefix: string; pattern: RegExp }> = {
  research: { prefix: "research-", pattern: /^research-(\d{3})\.md$/ },
  plan: { prefix: "implementation-", pattern: /^implementation-(\d{3})\.md$/ },
  summary: { prefix: "implementation-summary-", pattern: /^$/ },
  handoff: { prefix: "handoff-", pattern: /^handoff-(\d{3})\.md$/ },
};

export interface PlannedArtifact {
  /** Absolute path of the file to write. */
  path: string;
  /** Path relative to the repository root, as recorded in state.json. */
  recordedPath: string;
  /** v2 only: the value `next_artifact_number` takes once the artifact is recorded. */
  nextArtifactNumber?: number;
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The task's folder: the existing one whichever convention made it, else the configured convention's. */
export function taskFolderPath(specsDir: string, task: TaskEntry, naming: ArtifactNaming): string {
  for (const name of [
    taskFolderName(task.project_number, task.project_name, "v1"),
    taskFolderName(task.project_number, task.project_name, "v2"),
  ]) {
    if (present(join(specsDir, name))) return join(specsDir, name);
  }
  return join(specsDir, taskFolderName(task.project_number, task.project_name, naming));
}

/**
 * The path of the next artifact of a kind. v1: `research-{max+1:03}.md` and `implementation-{NNN}.md`
 * per kind, summaries dated; v2: one two-digit sequence per task shared by every kind,
 * `{NN}_{short-name}.md`, counted by `next_artifact_number` (or the highest number on disk, if larger).
 */
export function nextArtifactPath(
  root: string,
  specsDir: string,
  task: TaskEntry,
  kind: ArtifactKind,
  options: { naming: ArtifactNaming; shortName?: string; date?: Date },
): PlannedArtifact {
  const folder = taskFolderPath(specsDir, task, options.naming);
  const dir = join(folder, ARTIFACT_DIRS[kind]);
  const usesV2 =
    /^0\d+_/.test(folder.slice(folder.lastIndexOf("/") + 1)) ||
    typeof task["next_artifact_number"] === "number" ||
    options.naming === "v2";
  if (usesV2) {
    let highest = 0;
    for (const sub of Object.values(ARTIFACT_DIRS)) {
      for (const name of listNames(join(folder, sub))) {
        const match = /^(\d{2,})_/.exec(name);
        if (match) highest = Math.max(highest, Number(match[1]));
      }
    }
    const recorded =
      typeof task["next_artifact_number"] === "number" ? (task["next_artifact_number"] as number) : 1;
    const number = Math.max(recorded, highest + 1);
    const short =
      (options.shortName ?? kind)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "") || kind;
    const path = join(dir, `${String(number).padStart(2, "0")}_${short}.md`);
    return { path, recordedPath: relative(root, path), nextArtifactNumber: number + 1 };
  }
  if (kind === "summary") {
    const date = (options.date ?? new Date()).toISOString().slice(0, 10).replace(/-/g, "");
    const taken = new Set(listNames(dir));
    let name = `implementation-summary-${date}.md`;
    for (let k = 2; taken.has(name); k++) name = `implementation-summary-${date}-${k}.md`;
    const path = join(dir, name);
    return { path, recordedPath: relative(root, path) };
  }
  const { prefix, pattern } = V1_NAMES[kind];
  let highest = 0;
  for (const name of listNames(dir)) {
    const match = pattern.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  const path = join(dir, `${prefix}${String(highest + 1).padStart(3, "0")}.md`);
  return { path, recordedPath: relative(root, path) };
}

/** The last `plan` artifact in state.json; else the highest `implementation-NNN.md` in the task's plans/. */
export function latestPlanFile(root: string, folder: string, artifacts: readonly unknown[]): string | null {
  const plans = artifacts.flatMap((a) =>
    typeof a === "object" && a !== null && (a as { type?: unknown }).type === "plan"
      ? [(a as { path: string }).path]
      : [],
  );
  const last = plans.at(-1);
  if (last !== undefined) return recordedPath(root, last, "the task's plan artifact");
  let names: string[];
  try {
    names = readdirSync(join(folder, ARTIFACT_DIRS.plan));
  } catch {
    return null;
  }
  const version = (name: string) => Number(/(\d+)/.exec(name)?.[1] ?? -1);
  const best = names
    .filter((n) => n.endsWith(".md"))
    .sort((a, b) => version(a) - version(b) || a.localeCompare(b));
  const name = best.at(-1);
  return name === undefined ? null : join(folder, ARTIFACT_DIRS.plan, name);
}
