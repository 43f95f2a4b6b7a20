import { existsSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isBatonError, parseJsonDocument } from "../shared/index.js";
import { checkTaskFolders, rel } from "./doctor-folders.js";

import { loadArchive, readText } from "./load-store.js";
import { isProcessAlive } from "./lock.js";
import { describeHolder, firstFreeNumber, type NumberHolders, numberHolder } from "./numbering.js";
import { adoptable, findForeignChanges } from "./seal.js";
import type { StoreContext } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { isTaskStatus } from "./task-status.js";
import {
  entries,
  entryStatus,
  frontmatterNextNumber,
  parseTodo,
  type TodoDocument,
} from "./todo-document.js";

export type FindingCode =
  | "STATE_UNREADABLE"
  | "TODO_UNREADABLE"
  | "ARCHIVE_UNREADABLE"
  | "DUPLICATE_ACTIVE"
  | "ACTIVE_AND_ARCHIVED"
  | "NEXT_NUMBER_TAKEN"
  | "NEXT_NUMBER_MISMATCH"
  | "TODO_ENTRY_MISSING"
  | "TODO_ENTRY_EXTRA"
  | "STATUS_MISMATCH"
  | "UNKNOWN_STATUS"
  | "ORPHAN_FOLDER"
  | "MISPLACED_FOLDER"
  | "STALE_MARKER"
  | "LEFTOVER_RETURN_META"
  | "MISSING_ARTIFACT"
  | "INTERRUPTED_COMMIT"
  | "STALE_LOCK"
  | "STALE_GIT_LOCK"
  | "STORE_CHANGED_OUTSIDE_BATON";

export interface Finding {
  code: FindingCode;
  severity: "error" | "warning";
  message: string;
  /** What repairs it: what `--fix` does when `fixable`, else what the user should do. */
  fix: string;
  fixable: boolean;
  task?: number;
  path?: string;
}

export interface DoctorInput {
  tasks: TaskEntry[] | null;
  todo: TodoDocument | null;
  stateNext: number | null;
}

export function runDoctorChecks(ctx: StoreContext): Finding[] {
  const findings: Finding[] = [];
  const { paths } = ctx;
  const add = (f: Finding) => findings.push(f);

  if (existsSync(paths.journal)) {
    add({
      code: "INTERRUPTED_COMMIT",
      severity: "error",
      message: `a write was interrupted (${rel(ctx, paths.journal)} exists)`,
      fix: "roll the interrupted write forward",
      fixable: true,
      path: paths.journal,
    });
  }
  const lock = readText(paths.lock);
  if (lock !== null) {
    let holder: { pid?: number; hostname?: string; command?: string } = {};
    try {
      holder = JSON.parse(lock);
    } catch {
      // an empty lock file is judged by age when taken; here it is simply reported
    }
    if (holder.hostname === hostname() && typeof holder.pid === "number" && !isProcessAlive(holder.pid)) {
      add({
        code: "STALE_LOCK",
        severity: "warning",
        message: `lock held by pid ${holder.pid} ("${holder.command}"), which is no longer running`,
        fix: "remove the stale lock",
        fixable: true,
        path: paths.lock,
      });
    }
  }
  const gitLock = staleGitLock(ctx.config.root);
  if (gitLock) {
    add({
      code: "STALE_GIT_LOCK",
      severity: "warning",
      message: `${gitLock} is ${GIT_LOCK_AGE_S} s old or more: a git process killed mid-commit left it, and every commit fails until it goes`,
      fix: "remove it (only when no git process is running in this repository)",
      fixable: true,
      path: gitLock,
    });
  }

  let tasks: TaskEntry[] | null = null;
  let stateNext: number | null = null;
  const stateText = readText(paths.state);
  if (stateText !== null) {
    try {
      const doc = parseJsonDocument<{ active_projects?: unknown; next_project_number?: unknown }>(
        paths.state,
        stateText,
      );
      if (!Array.isArray(doc.value.active_projects) || typeof doc.value.next_project_number !== "number") {
        throw new Error(`${rel(ctx, paths.state)} lacks active_projects or next_project_number`);
      }
      tasks = doc.value.active_projects as TaskEntry[];
      stateNext = doc.value.next_project_number;
    } catch (error) {
      add({
        code: "STATE_UNREADABLE",
        severity: "error",
        message: messageOf(error),
        fix: "fix the file by hand (git diff shows recent edits)",
        fixable: false,
        path: paths.state,
      });
    }
  }
  let todo: TodoDocument | null = null;
  const todoText = readText(paths.todo);
  if (todoText !== null) {
    try {
      todo = parseTodo(paths.todo, todoText);
    } catch (error) {
      add({
        code: "TODO_UNREADABLE",
        severity: "error",
        message: messageOf(error),
        fix: "fix the entry by hand",
        fixable: false,
        path: paths.todo,
      });
    }
  }
  let archived: Array<{ project_number: number; status?: string; original_dirname?: unknown }> = [];
  try {
    archived = loadArchive(paths).entries;
  } catch (error) {
    add({
      code: "ARCHIVE_UNREADABLE",
      severity: "error",
      message: messageOf(error),
      fix: "fix the file by hand",
      fixable: false,
      path: paths.archiveState,
    });
  }
  if (!tasks) return findings;

  const byNumber = new Map<number, TaskEntry>();
  for (const task of tasks) {
    if (byNumber.has(task.project_number)) {
      add({
        code: "DUPLICATE_ACTIVE",
        severity: "error",
        message: `task ${task.project_number} appears more than once in active_projects`,
        fix: "keep one entry and renumber or delete the other by hand (Baton will not guess which is right)",
        fixable: false,
        task: task.project_number,
      });
    }
    byNumber.set(task.project_number, task);
  }
  const archivedNumbers = new Set(archived.map((e) => e.project_number));
  for (const task of tasks) {
    if (archivedNumbers.has(task.project_number)) {
      add({
        code: "ACTIVE_AND_ARCHIVED",
        severity: "warning",
        message: `task ${task.project_number} is active and also has an archive entry`,
        fix: "check which record is current; `baton task list` shows the active one",
        fixable: false,
        task: task.project_number,
      });
    }
    if (!isTaskStatus(task.status)) {
      add({
        code: "UNKNOWN_STATUS",
        severity: "warning",
        message: `task ${task.project_number} has status "${task.status}", which is not in the lifecycle table`,
        fix: `set a real status with \`baton task status ${task.project_number} <status> --force\``,
        fixable: false,
        task: task.project_number,
      });
    }
  }

  const todoNext = todo ? frontmatterNextNumber(todo) : undefined;
  const holders: NumberHolders = {
    active: new Set(tasks.map((t) => t.project_number)),
    todo: new Set(todo ? [...entries(todo)].map((e) => e.number) : []),
    archived: new Set(archived.map((e) => e.project_number)),
  };
  const start = Math.max(stateNext ?? 0, todoNext ?? 0);
  const free = firstFreeNumber(start, (n) => numberHolder(holders, n) !== null);
  const holder = stateNext === null ? null : numberHolder(holders, start);
  if (holder !== null) {
    add({
      code: "NEXT_NUMBER_TAKEN",
      severity: "error",
      message: `next_project_number ${start} is already held by ${describeHolder(holder, start)}`,
      fix: `set next_project_number to ${free} (the first free number from ${start}) in state.json and TODO.md`,
      fixable: true,
    });
  }
  if (todo && stateNext !== null && todoNext !== stateNext) {
    add({
      code: "NEXT_NUMBER_MISMATCH",
      severity: "error",
      message: `next_project_number is ${stateNext} in state.json but ${todoNext ?? "missing"} in TODO.md`,
      fix: `write the higher value, moved past numbers in use (${free}), to both`,
      fixable: true,
    });
  }

  if (todo) {
    const todoNumbers = new Map<number, string | undefined>();
    for (const entry of entries(todo)) todoNumbers.set(entry.number, entryStatus(entry));
    for (const task of tasks) {
      if (!todoNumbers.has(task.project_number)) {
        add({
          code: "TODO_ENTRY_MISSING",
          severity: "error",
          message: `task ${task.project_number} is in state.json but has no TODO.md entry`,
          fix: "add a TODO.md entry built from state.json",
          fixable: true,
          task: task.project_number,
        });
      } else if (todoNumbers.get(task.project_number) !== task.status) {
        add({
          code: "STATUS_MISMATCH",
          severity: "error",
          message: `task ${task.project_number} is ${task.status} in state.json but [${(todoNumbers.get(task.project_number) ?? "").toUpperCase().replace(/_/g, " ")}] in TODO.md`,
          fix: "set the TODO.md marker from state.json (state.json is the machine truth)",
          fixable: true,
          task: task.project_number,
        });
      }
    }
    for (const [number] of todoNumbers) {
      if (!byNumber.has(number)) {
        add({
          code: "TODO_ENTRY_EXTRA",
          severity: "error",
          message: `TODO.md has task ${number}, which state.json does not`,
          fix: archivedNumbers.has(number)
            ? "remove the TODO.md entry (the task is archived)"
            : "add it to state.json from its TODO.md fields",
          fixable: true,
          task: number,
        });
      }
    }
  } else if (todoText === null && tasks.length > 0) {
    add({
      code: "TODO_ENTRY_MISSING",
      severity: "error",
      message: "TODO.md is missing",
      fix: "rebuild TODO.md from state.json",
      fixable: true,
    });
  }

  findings.push(...checkTaskFolders(ctx, tasks, byNumber, archivedNumbers));
  for (const change of findForeignChanges(paths)) {
    add({
      code: "STORE_CHANGED_OUTSIDE_BATON",
      severity: "warning",
      message: `specs/${change.file} was ${change.kind} outside Baton since Baton last wrote it`,
      fix: adoptable(change)
        ? "keep the edit with `baton adopt` (a person outside a Claude Code session), or undo it with `git checkout`"
        : "a file only Baton writes: `baton doctor --fix` (or the next Baton command) restores Baton's last write",
      fixable: true,
      path: change.path,
    });
  }
  return findings;
}

function messageOf(error: unknown): string {
  if (isBatonError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** A git command holds index.lock for milliseconds; one this old was left by a process that died. */
const GIT_LOCK_AGE_S = 60;

function staleGitLock(root: string): string | null {
  const path = join(root, ".git", "index.lock");
  try {
    return Date.now() - statSync(path).mtimeMs >= GIT_LOCK_AGE_S * 1000 ? path : null;
  } catch {
    return null;
  }
}
