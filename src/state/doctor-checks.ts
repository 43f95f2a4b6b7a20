import { statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isBatonError } from "../shared/index.js";
import { present } from "../shared/present.js";
import type { DoctorView, Finding, FindingCode } from "./doctor-finding.js";
import { checkTaskFolders, rel } from "./doctor-folders.js";
import { irregularFindings, irregularNumbers } from "./doctor-irregular.js";
import { activeEntryChecks, numberChecks, sealChecks, todoChecks } from "./doctor-store-checks.js";
import { type LoadedState, loadArchive, loadState, readText } from "./load-store.js";
import { isProcessAlive } from "./lock.js";
import type { StoreContext } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { parseTodo, type TodoDocument } from "./todo-document.js";

export type { DoctorView, Finding, FindingCode } from "./doctor-finding.js";

/** Doctor's checks of a readable store, in the order they report; a new check is a function and one line here. */
const STORE_CHECKS: ReadonlyArray<(view: DoctorView) => Finding[]> = [
  activeEntryChecks,
  numberChecks,
  todoChecks,
  (view) => checkTaskFolders(view.ctx, view.tasks, view.byNumber, view.archivedNumbers),
  sealChecks,
];

export function runDoctorChecks(ctx: StoreContext): Finding[] {
  const findings: Finding[] = [...leftoverChecks(ctx)];
  const read = readStoreFiles(ctx);
  findings.push(...read.findings);
  if (!read.tasks) return findings;
  const byNumber = new Map<number, TaskEntry>();
  for (const task of read.tasks) byNumber.set(task.project_number, task);
  const view: DoctorView = {
    ctx,
    tasks: read.tasks,
    byNumber,
    stateNext: read.stateNext,
    todo: read.todo,
    todoText: read.todoText,
    archived: read.archived,
    archivedNumbers: new Set(read.archived.map((e) => e.project_number)),
    irregularTasks: read.irregularTasks,
  };
  for (const check of STORE_CHECKS) findings.push(...check(view));
  return findings;
}

/** What an interrupted write or a dead process left: the write journal, the store lock, git's index.lock. */
function leftoverChecks(ctx: StoreContext): Finding[] {
  const { paths } = ctx;
  const findings: Finding[] = [];
  if (present(paths.journal)) {
    findings.push({
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
      findings.push({
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
    findings.push({
      code: "STALE_GIT_LOCK",
      severity: "warning",
      message: `${gitLock} is ${GIT_LOCK_AGE_S} s old or more: a git process killed mid-commit left it, and every commit fails until it goes`,
      fix: "remove it (only when no git process is running in this repository)",
      fixable: true,
      path: gitLock,
    });
  }
  return findings;
}

/** state.json, TODO.md and the archive, each read on its own: one unreadable file does not hide the others. */
function readStoreFiles(ctx: StoreContext) {
  const { paths } = ctx;
  const findings: Finding[] = [];
  const unreadable = (code: FindingCode, error: unknown, fix: string, path: string) =>
    findings.push({ code, severity: "error", message: messageOf(error), fix, fixable: false, path });
  let state: LoadedState | null = null;
  try {
    state = loadState(paths);
  } catch (error) {
    unreadable("STATE_UNREADABLE", error, "fix the file by hand (git diff shows recent edits)", paths.state);
  }
  let todo: TodoDocument | null = null;
  const todoText = readText(paths.todo);
  if (todoText !== null) {
    try {
      todo = parseTodo(paths.todo, todoText);
    } catch (error) {
      unreadable("TODO_UNREADABLE", error, "fix the entry by hand", paths.todo);
    }
  }
  let archived: DoctorView["archived"] = [];
  try {
    archived = loadArchive(paths).entries;
  } catch (error) {
    unreadable("ARCHIVE_UNREADABLE", error, "fix the file by hand", paths.archiveState);
  }
  findings.push(...irregularFindings(ctx, state, todo));
  return {
    findings,
    tasks: state?.exists ? state.tasks : null,
    stateNext: state?.exists ? state.doc.value.next_project_number : null,
    irregularTasks: irregularNumbers(state, todo),
    todo,
    todoText,
    archived,
  };
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
