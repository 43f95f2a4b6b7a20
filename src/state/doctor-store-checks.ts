import type { DoctorView, Finding } from "./doctor-finding.js";
import { describeHolder, firstFreeNumber, type NumberHolders, numberHolder } from "./numbering.js";
import { adoptable, findForeignChanges } from "./seal.js";
import { isTaskStatus } from "./task-status.js";
import { entries, entryStatus } from "./todo-document.js";
import { frontmatterNextNumber } from "./todo-frontmatter.js";

/** Doctor's checks of a readable store: each takes what doctor read and returns its findings. */

/** Each active entry: not also archived, with a status of the lifecycle table. */
export function activeEntryChecks({ tasks, archivedNumbers, irregularTasks }: DoctorView): Finding[] {
  const findings: Finding[] = [];
  for (const task of tasks) {
    const n = task.project_number;
    if (archivedNumbers.has(n)) {
      findings.push({
        code: "ACTIVE_AND_ARCHIVED",
        severity: "warning",
        message: `task ${n} is active and also has an archive entry`,
        fix: "check which record is current; `baton task list` shows the active one",
        fixable: false,
        task: n,
      });
    }
    if (!isTaskStatus(task.status) && !irregularTasks.has(n)) {
      findings.push({
        code: "UNKNOWN_STATUS",
        severity: "warning",
        message: `task ${n} has status "${task.status}", which is not in the lifecycle table`,
        fix: `set a real status with \`baton task status ${n} <status> --force\``,
        fixable: false,
        task: n,
      });
    }
  }
  return findings;
}

/** next_project_number: free, and the same in state.json and TODO.md. */
export function numberChecks({ tasks, todo, archived, stateNext }: DoctorView): Finding[] {
  const findings: Finding[] = [];
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
    findings.push({
      code: "NEXT_NUMBER_TAKEN",
      severity: "error",
      message: `next_project_number ${start} is already held by ${describeHolder(holder, start)}`,
      fix: `set next_project_number to ${free} (the first free number from ${start}) in state.json and TODO.md`,
      fixable: true,
    });
  }
  if (todo && stateNext !== null && todoNext !== stateNext) {
    findings.push({
      code: "NEXT_NUMBER_MISMATCH",
      severity: "error",
      message: `next_project_number is ${stateNext} in state.json but ${todoNext ?? "missing"} in TODO.md`,
      fix: `write the higher value, moved past numbers in use (${free}), to both`,
      fixable: true,
    });
  }
  return findings;
}

/** state.json and TODO.md agree: the same tasks, with the same statuses. */
export function todoChecks({
  tasks,
  todo,
  todoText,
  byNumber,
  archivedNumbers,
  irregularTasks,
}: DoctorView): Finding[] {
  if (!todo) {
    if (todoText !== null || tasks.length === 0) return [];
    const fix = "rebuild TODO.md from state.json";
    return [
      { code: "TODO_ENTRY_MISSING", severity: "error", message: "TODO.md is missing", fix, fixable: true },
    ];
  }
  const findings: Finding[] = [];
  const todoNumbers = new Map<number, string | undefined>();
  for (const entry of entries(todo)) todoNumbers.set(entry.number, entryStatus(entry));
  for (const task of tasks) {
    const n = task.project_number;
    if (!todoNumbers.has(n)) {
      findings.push({
        code: "TODO_ENTRY_MISSING",
        severity: "error",
        message: `task ${n} is in state.json but has no TODO.md entry`,
        fix: "add a TODO.md entry built from state.json",
        fixable: true,
        task: n,
      });
    } else if (todoNumbers.get(n) !== task.status && !irregularTasks.has(n)) {
      const marker = (todoNumbers.get(n) ?? "").toUpperCase().replace(/_/g, " ");
      findings.push({
        code: "STATUS_MISMATCH",
        severity: "error",
        message: `task ${n} is ${task.status} in state.json but [${marker}] in TODO.md`,
        fix: "set the TODO.md marker from state.json (state.json is the machine truth)",
        fixable: true,
        task: n,
      });
    }
  }
  for (const [number] of todoNumbers) {
    if (byNumber.has(number)) continue;
    findings.push({
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
  return findings;
}

/** Store files that differ from what Baton last wrote (the seal). */
export function sealChecks({ ctx }: DoctorView): Finding[] {
  return findForeignChanges(ctx.paths).map((change) => ({
    code: "STORE_CHANGED_OUTSIDE_BATON" as const,
    severity: "warning" as const,
    message: `specs/${change.file} was ${change.kind} outside Baton since Baton last wrote it`,
    fix: adoptable(change)
      ? "keep the edit with `baton adopt` (a person outside a Claude Code session), or undo it with `git checkout`"
      : "a file only Baton writes: `baton doctor --fix` (or the next Baton command) restores Baton's last write",
    fixable: true,
    path: change.path,
  }));
}
