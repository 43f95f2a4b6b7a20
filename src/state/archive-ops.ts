import { readdirSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import type { ArtifactNaming } from "../config/index.js";
import { isoDate, TaskNotFoundError, TransitionError, UsageError } from "../shared/index.js";
import { present } from "../shared/present.js";
import { updateChangeLog, updateRoadMap } from "./archive-docs.js";
import { recordAudit } from "./audit.js";
import { type CheckpointGuardOptions, guardOpenCheckpoint } from "./checkpoint-guard.js";
import { IN_PROGRESS_STATUSES } from "./lifecycle.js";
import { titleFromSlug } from "./naming.js";
import { TASK_FOLDER, taskFolderName } from "./paths.js";
import { autoCompleteExpanded } from "./status-changes.js";
import type { Transaction } from "./store.js";
import type { ArchivedTask, TaskEntry } from "./store-schema.js";
import { requireTask } from "./task-lookup.js";
import { taskTypeConvention } from "./task-ops.js";
import { setTaskType, taskTypeOf } from "./task-type.js";
import { findEntry } from "./todo-document.js";
import { buildEntry, insertEntry, removeEntry } from "./todo-entry.js";

/** The folder of an active task, whichever naming convention made it; null when it has none yet. */
export function findTaskFolder(
  tx: Transaction,
  number: number,
  slug: string,
  base = tx.paths.dir,
): string | null {
  for (const name of [taskFolderName(number, slug, "v1"), taskFolderName(number, slug, "v2")]) {
    const path = join(base, name);
    if (present(path)) return path;
  }
  return null;
}

/** An archive destination that never overwrites: a second folder of the same name gets a suffix. */
function freeArchivePath(tx: Transaction, name: string): string {
  const taken = new Set(tx.moves.map((m) => m.to));
  let candidate = join(tx.paths.archiveDir, name);
  for (let k = 2; present(candidate) || taken.has(candidate); k++) {
    candidate = join(tx.paths.archiveDir, `${name}-${k}`);
  }
  return candidate;
}

function moveToArchive(tx: Transaction, entry: Record<string, unknown>, folder: string | null): void {
  if (!folder) return;
  const name = folder.slice(folder.lastIndexOf("/") + 1);
  const to = freeArchivePath(tx, name);
  if (!to.endsWith(`/${name}`)) entry["archive_folder"] = relative(tx.config.root, to);
  tx.moveFolder(folder, to);
}

export interface AbandonResult {
  abandoned: number[];
  autoCompleted: number[];
}

/** Abandoning moves the task to the archive at once, as the original /task --abandon did. */
export function abandonTasks(
  tx: Transaction,
  numbers: readonly number[],
  options: { reason?: string | undefined } & CheckpointGuardOptions = {},
): AbandonResult {
  const tasks = numbers.map((n) => requireTask(tx, n));
  for (const task of tasks) guardOpenCheckpoint(tx, task, "abandon it", options);
  for (const task of tasks) {
    if (IN_PROGRESS_STATUSES.includes(task.status) && !options.force) {
      throw new TransitionError(
        `task ${task.project_number}: cannot abandon while it is ${task.status} (an operation is running)`,
        { hint: "Wait for it to finish or pass --force if the run is gone; nothing was written." },
      );
    }
  }
  const archive = tx.archive();
  for (const task of tasks) {
    const from = task.status;
    const folder = findTaskFolder(tx, task.project_number, task.project_name);
    task.status = "abandoned";
    task["abandoned"] = tx.timestamp;
    task.last_updated = tx.timestamp;
    if (options.reason) task["abandoned_reason"] = options.reason;
    if (IN_PROGRESS_STATUSES.includes(from)) {
      recordAudit(task, {
        timestamp: tx.timestamp,
        action: "abandon --force",
        from,
        to: "abandoned",
        note: options.reason ?? "",
      });
    }
    tx.tasks.splice(tx.tasks.indexOf(task), 1);
    archive.entries.unshift(task);
    removeEntry(tx.todo, task.project_number);
    moveToArchive(tx, task, folder);
  }
  return { abandoned: tasks.map((t) => t.project_number), autoCompleted: autoCompleteExpanded(tx) };
}

export interface RecoverResult {
  recovered: Array<{ number: number; folder: string | null }>;
}

export function recoverTasks(tx: Transaction, numbers: readonly number[]): RecoverResult {
  const archive = tx.archive();
  const recovered: RecoverResult["recovered"] = [];
  for (const number of numbers) {
    if (tx.findTask(number)) {
      throw new UsageError(`task ${number} is already active`, { hint: "Nothing was written." });
    }
    const entry = archive.entries.find((e) => e.project_number === number);
    if (!entry) throw new TaskNotFoundError(number, tx.paths.archiveState);
    const slug = entry.project_name ?? "recovered";
    const folderName = typeof entry["original_dirname"] === "string" ? entry["original_dirname"] : null;
    const archivedFolder =
      typeof entry["archive_folder"] === "string"
        ? join(tx.config.root, entry["archive_folder"])
        : folderName
          ? join(tx.paths.archiveDir, folderName)
          : findTaskFolder(tx, number, slug, tx.paths.archiveDir);
    let destination: string | null = null;
    if (archivedFolder && present(archivedFolder)) {
      destination = join(
        tx.paths.dir,
        recoveredFolderName(entry, archivedFolder, number, slug, tx.config.artifactNaming),
      );
      if (present(destination)) {
        throw new UsageError(`cannot recover task ${number}: ${destination} already exists`, {
          hint: "Move or remove that folder first; nothing was written.",
        });
      }
      tx.moveFolder(archivedFolder, destination);
    }
    archive.entries.splice(archive.entries.indexOf(entry), 1);
    tx.releasedArchiveEntries.add(entry);
    const task = entry as TaskEntry;
    task.project_name = slug;
    task.status = "not_started";
    if (taskTypeOf(task) === undefined)
      setTaskType(task, tx.config.defaultLanguage, taskTypeConvention(tx).key);
    task.last_updated = tx.timestamp;
    delete task["archive_folder"];
    tx.tasks.unshift(task);
    insertEntry(
      tx.todo,
      buildEntry({
        number,
        title: typeof task["title"] === "string" ? task["title"] : titleFromSlug(slug),
        status: "not_started",
        language: taskTypeOf(task) ?? tx.config.defaultLanguage,
        typeField: taskTypeConvention(tx).field,
        effort: task.effort === undefined ? undefined : String(task.effort),
        priority: task.priority,
        created: isoDate(tx.now),
        description: task.description,
      }),
      tx.config.newTaskPosition,
    );
    recovered.push({ number, folder: destination ? relative(tx.config.root, destination) : null });
  }
  return { recovered };
}

/**
 * A recovered folder keeps its own name (v1 or zero-padded v2), minus the `-2` suffix an archive
 * collision added; a renumbered orphan takes its new number, since its old one belongs to another task.
 */
function recoveredFolderName(
  entry: ArchivedTask,
  archivedFolder: string,
  number: number,
  slug: string,
  naming: ArtifactNaming,
): string {
  if (typeof entry["original_dirname"] === "string") return taskFolderName(number, slug, naming);
  const name = basename(archivedFolder);
  return typeof entry["archive_folder"] === "string" ? name.replace(/-\d+$/, "") : name;
}

export interface ArchiveResult {
  archived: Array<{ number: number; status: string; folder: string | null }>;
  autoCompleted: number[];
  orphans: Array<{ number: number; folder: string }>;
  misplaced: Array<{ number: number; folder: string }>;
  changeLogEntries: number;
  roadMapItems: number;
}

/** The deterministic part of the original /todo: archive finished tasks, record orphans, touch nothing else. */
export function archiveFinished(tx: Transaction): ArchiveResult {
  const autoCompleted = autoCompleteExpanded(tx);
  const archive = tx.archive();
  const finished = tx.tasks.filter((t) => t.status === "completed" || t.status === "abandoned");
  const result: ArchiveResult = {
    archived: [],
    autoCompleted,
    orphans: [],
    misplaced: [],
    changeLogEntries: 0,
    roadMapItems: 0,
  };
  const newEntries: ArchivedTask[] = [];
  const titles = new Map<number, string>();
  for (const task of finished) {
    titles.set(
      task.project_number,
      findEntry(tx.todo, task.project_number)?.title ?? titleFromSlug(task.project_name),
    );
    const folder = findTaskFolder(tx, task.project_number, task.project_name);
    tx.tasks.splice(tx.tasks.indexOf(task), 1);
    task["archived"] = tx.timestamp;
    task["source"] = "archival";
    removeEntry(tx.todo, task.project_number);
    moveToArchive(tx, task, folder);
    newEntries.push(task as ArchivedTask);
    result.archived.push({
      number: task.project_number,
      status: task.status,
      folder: folder ? relative(tx.config.root, folder) : null,
    });
  }
  archive.entries.unshift(...newEntries);
  const swept = sweepTaskFolders(tx);
  result.orphans = swept.orphans;
  result.misplaced = swept.misplaced;
  const finishedTasks = finished.map((t) => ({ task: t, title: titles.get(t.project_number)! }));
  result.changeLogEntries = updateChangeLog(tx, finishedTasks);
  result.roadMapItems = updateRoadMap(tx, finishedTasks);
  return result;
}

/**
 * Folders under specs/ without an active task: a number only the archive knows is misplaced and moves
 * into the archive; a number nobody knows is an orphan, recorded as `orphan_archived` and moved too.
 */
export function sweepTaskFolders(tx: Transaction): Pick<ArchiveResult, "orphans" | "misplaced"> {
  const archive = tx.archive();
  const result: Pick<ArchiveResult, "orphans" | "misplaced"> = { orphans: [], misplaced: [] };
  const known = new Set<number>([
    ...tx.tasks.map((t) => t.project_number),
    ...archive.entries.map((e) => e.project_number),
  ]);
  const active = new Set(tx.tasks.map((t) => t.project_number));
  const movedFrom = new Set(tx.moves.map((m) => m.from));
  for (const name of listTaskFolders(tx.paths.dir)) {
    const path = join(tx.paths.dir, name);
    if (movedFrom.has(path)) continue;
    const number = Number(TASK_FOLDER.exec(name)![1]);
    if (active.has(number)) continue;
    if (known.has(number)) {
      result.misplaced.push({ number, folder: relative(tx.config.root, path) });
      tx.moveFolder(path, freeArchivePath(tx, name));
      continue;
    }
    const orphan: Record<string, unknown> = {
      project_number: number,
      project_name: TASK_FOLDER.exec(name)![2],
      status: "orphan_archived",
      archived: tx.timestamp,
      source: "orphan_recovery",
      detected_artifacts: readdirSync(path)
        .filter((f) => isDir(join(path, f)))
        .map((f) => `${f}/`),
    };
    moveToArchive(tx, orphan, path);
    archive.entries.unshift(orphan as ArchivedTask);
    known.add(number);
    result.orphans.push({ number, folder: relative(tx.config.root, path) });
  }
  return result;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function listTaskFolders(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => TASK_FOLDER.test(n) && isDir(join(dir, n)))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
}
