import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { LEGACY_MARKER_FILES, MARKER_FILE, MARKER_FILES, METADATA_FILE } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import { listTaskFolders } from "./archive-ops.js";
import type { Finding } from "./doctor-finding.js";
import { IN_PROGRESS_STATUSES } from "./lifecycle.js";
import { TASK_FOLDER } from "./paths.js";
import type { StoreContext } from "./store.js";
import type { TaskEntry } from "./store-schema.js";

const CONTROL_FILES: readonly string[] = [...MARKER_FILES, ...LEGACY_MARKER_FILES];

/** A path as the user reads it: relative to the repository root. */
export function rel(ctx: StoreContext, path: string): string {
  return relative(ctx.config.root, path) || path;
}

/** Doctor's checks of the folders under specs/: orphans, misplaced folders, left-over control files, missing artifacts. */
export function checkTaskFolders(
  ctx: StoreContext,
  tasks: readonly TaskEntry[],
  byNumber: ReadonlyMap<number, TaskEntry>,
  archivedNumbers: ReadonlySet<number>,
): Finding[] {
  return [
    ...unownedFolders(ctx, byNumber, archivedNumbers),
    ...leftoverControlFiles(ctx, tasks, byNumber),
    ...missingArtifacts(ctx, tasks),
  ];
}

/** Folders of no active task: an archived task's (misplaced) or nobody's (orphan). */
function unownedFolders(
  ctx: StoreContext,
  byNumber: ReadonlyMap<number, TaskEntry>,
  archivedNumbers: ReadonlySet<number>,
): Finding[] {
  const findings: Finding[] = [];
  for (const name of listTaskFolders(ctx.paths.dir)) {
    const number = Number(TASK_FOLDER.exec(name)![1]);
    if (byNumber.has(number)) continue;
    const path = join(ctx.paths.dir, name);
    findings.push(
      archivedNumbers.has(number)
        ? {
            code: "MISPLACED_FOLDER",
            severity: "warning",
            message: `${rel(ctx, path)} belongs to archived task ${number}`,
            fix: "move it into specs/archive/",
            fixable: true,
            task: number,
            path,
          }
        : {
            code: "ORPHAN_FOLDER",
            severity: "warning",
            message: `${rel(ctx, path)} has no task in state.json or the archive`,
            fix: "record it in the archive as orphan_archived and move it there",
            fixable: true,
            task: number,
            path,
          },
    );
  }
  return findings;
}

/** Markers and return metadata no running operation owns, in task folders (active and archived) and the store's root. */
function leftoverControlFiles(
  ctx: StoreContext,
  tasks: readonly TaskEntry[],
  byNumber: ReadonlyMap<number, TaskEntry>,
): Finding[] {
  const { paths } = ctx;
  const findings: Finding[] = [];
  const inProgress = (n: number) => {
    const task = byNumber.get(n);
    return task !== undefined && IN_PROGRESS_STATUSES.includes(task.status);
  };
  for (const [base, archivedBase] of [
    [paths.dir, false],
    [paths.archiveDir, true],
  ] as const) {
    for (const name of listTaskFolders(base)) {
      const number = Number(TASK_FOLDER.exec(name)![1]);
      const folder = join(base, name);
      const open = !archivedBase && inProgress(number);
      for (const control of CONTROL_FILES) {
        const path = join(folder, control);
        if (present(path) && !(open && markerMatchesSession(path, byNumber.get(number)))) {
          const message = `${rel(ctx, path)} is left over (no operation is running on task ${number})`;
          findings.push({
            code: "STALE_MARKER",
            severity: "warning",
            message,
            fix: "delete it",
            fixable: true,
            task: number,
            path,
          });
        }
      }
      if (open) continue;
      for (const meta of returnMetaFiles(folder)) {
        findings.push({
          code: "LEFTOVER_RETURN_META",
          severity: "warning",
          message: `${rel(ctx, meta)} is a leftover agent return-metadata file`,
          fix: "delete it (its content is recorded in state.json)",
          fixable: true,
          task: number,
          path: meta,
        });
      }
    }
  }
  return [...findings, ...leftoverInStoreRoot(ctx, tasks)];
}

/** The original system's markers and metadata at the store's root, left while nothing runs. */
function leftoverInStoreRoot(ctx: StoreContext, tasks: readonly TaskEntry[]): Finding[] {
  const { paths } = ctx;
  if (tasks.some((t) => IN_PROGRESS_STATUSES.includes(t.status))) return [];
  const findings: Finding[] = [];
  for (const path of [
    ...LEGACY_MARKER_FILES.map((name) => join(paths.dir, name)),
    join(paths.dir, ".meta-return", "return-meta.json"),
  ]) {
    if (!present(path)) continue;
    const code = path.includes("meta-return") ? "LEFTOVER_RETURN_META" : "STALE_MARKER";
    findings.push({
      code,
      severity: "warning",
      message: `${rel(ctx, path)} is left over`,
      fix: "delete it",
      fixable: true,
      path,
    });
  }
  return findings;
}

function missingArtifacts(ctx: StoreContext, tasks: readonly TaskEntry[]): Finding[] {
  const findings: Finding[] = [];
  for (const task of tasks) {
    for (const artifact of task.artifacts ?? []) {
      const path = typeof artifact === "string" ? artifact : artifact.path;
      if (present(join(ctx.config.root, path)) || present(join(ctx.paths.dir, path))) continue;
      findings.push({
        code: "MISSING_ARTIFACT",
        severity: "warning",
        message: `task ${task.project_number} links ${path}, which does not exist`,
        fix: "restore the file from git or remove the link",
        fixable: false,
        task: task.project_number,
      });
    }
  }
  return findings;
}

function returnMetaFiles(folder: string): string[] {
  const out: string[] = [];
  const main = join(folder, METADATA_FILE);
  if (present(main)) out.push(main);
  const legacy = join(folder, ".meta");
  try {
    for (const name of readdirSync(legacy))
      if (name.endsWith("return-meta.json")) out.push(join(legacy, name));
  } catch {
    // no legacy folder
  }
  return out;
}

function markerMatchesSession(path: string, task: TaskEntry | undefined): boolean {
  if (!path.endsWith(MARKER_FILE)) return true;
  try {
    const marker = JSON.parse(readFileSync(path, "utf8")) as { session_id?: string };
    return task?.session_id !== undefined && marker.session_id === task.session_id;
  } catch {
    return false;
  }
}
