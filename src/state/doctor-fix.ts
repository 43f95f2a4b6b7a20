import { unlinkSync } from "node:fs";
import { sweepTaskFolders } from "./archive-ops.js";
import type { Finding } from "./doctor-checks.js";
import { unbulletedFieldLines } from "./doctor-irregular.js";
import { slugify } from "./naming.js";
import { firstFreeNumber } from "./numbering.js";
import { sessionActive } from "./open-checkpoint.js";
import { mutateStore, type StoreContext, type Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { requireTodoEntry } from "./task-lookup.js";
import { entries, entryStatus } from "./todo-document.js";
import { getEntryDescription, getEntryField, removeEntry, setEntryStatus } from "./todo-entry.js";
import { frontmatterNextNumber } from "./todo-frontmatter.js";

export interface FixReport {
  fixed: Finding[];
  notFixed: Finding[];
}

const STORE_CODES = new Set([
  "TODO_ENTRY_MISSING",
  "TODO_ENTRY_EXTRA",
  "STATUS_MISMATCH",
  "NEXT_NUMBER_TAKEN",
  "NEXT_NUMBER_MISMATCH",
  "ORPHAN_FOLDER",
  "MISPLACED_FOLDER",
  "INTERRUPTED_COMMIT",
  "STORE_CHANGED_OUTSIDE_BATON",
  "IRREGULAR_ENTRY",
]);

/** Repairs the fixable findings: store repairs in one locked write, then control-file deletions. */
export async function fixFindings(ctx: StoreContext, findings: readonly Finding[]): Promise<FixReport> {
  const fixable = findings.filter((f) => f.fixable);
  const fixed: Finding[] = [];
  for (const f of fixable.filter((f) => f.code === "STALE_LOCK" || f.code === "STALE_GIT_LOCK")) {
    if (tryUnlink(f.path!)) fixed.push(f);
  }
  const storeFindings = fixable.filter((f) => STORE_CODES.has(f.code));
  // Markers are sealed: they go through the store, or the next hook would put them back.
  const controlFiles = fixable.filter((f) => f.code === "STALE_MARKER" || f.code === "LEFTOVER_RETURN_META");
  const unrepaired = new Set<Finding>();
  if (storeFindings.length > 0 || controlFiles.length > 0) {
    // A person's --fix adopts their own edits to the store; inside a Claude Code session nothing is adopted.
    const adopt = !sessionActive(ctx.paths);
    await mutateStore(ctx, { command: "baton doctor --fix", rebuildTodo: true, adopt }, (tx) => {
      const codes = new Set(storeFindings.map((f) => f.code));
      if (codes.has("TODO_ENTRY_MISSING")) {
        // Entries are inserted newest-first, so walk the tasks backwards to keep state.json's order.
        for (const task of [...tx.tasks].reverse()) requireTodoEntry(tx, task);
      }
      for (const f of storeFindings)
        if (f.code === "IRREGULAR_ENTRY" && f.task !== undefined) repairEntry(tx, f.task);
      if (codes.has("STATUS_MISMATCH")) {
        for (const task of tx.tasks) {
          const entry = tx.findTodoEntry(task.project_number);
          if (!entry || tx.todo.guards.has(entry) || tx.state.guards.has(task)) continue;
          if (entryStatus(entry) !== task.status) setEntryStatus(entry, task.status);
        }
      }
      if (codes.has("TODO_ENTRY_EXTRA")) adoptOrDropExtraEntries(tx);
      if (codes.has("NEXT_NUMBER_TAKEN") || codes.has("NEXT_NUMBER_MISMATCH")) {
        // The store's own validation moves the number past live tasks; archived ones are added here.
        const archived = new Set(tx.archive().entries.map((e) => e.project_number));
        const live = new Set(tx.tasks.map((t) => t.project_number));
        const state = tx.state.doc.value;
        state.next_project_number = firstFreeNumber(
          Math.max(state.next_project_number, frontmatterNextNumber(tx.todo) ?? 0),
          (n) => live.has(n) || archived.has(n),
        );
      }
      if (codes.has("ORPHAN_FOLDER") || codes.has("MISPLACED_FOLDER")) sweepTaskFolders(tx);
      for (const f of controlFiles) tx.deleteFile(f.path!);
    });
    fixed.push(...storeFindings.filter((f) => !unrepaired.has(f)), ...controlFiles);
  }
  return { fixed, notFixed: findings.filter((f) => !fixed.includes(f)) };
}

/**
 * The repairs that lose nothing: a state.json entry rewritten in the form its readable view shows, a
 * missing TODO status line added from state.json, field lines given the `- ` bullet.
 */
function repairEntry(tx: Transaction, number: number): { state: boolean; todo: boolean } {
  const done = { state: false, todo: false };
  const task = tx.findTask(number);
  if (task && tx.state.guards.get(task)?.repair) {
    tx.repaired.add(task);
    done.state = true;
  }
  const entry = tx.findTodoEntry(number);
  if (!entry) return done;
  const guard = tx.todo.guards.get(entry);
  if (guard?.irregularity.code === "NO_STATUS_LINE" && task && !tx.state.guards.has(task)) {
    setEntryStatus(entry, task.status);
    tx.repairedEntries.add(entry);
    done.todo = true;
  }
  if (tx.todo.guards.has(entry) && !tx.repairedEntries.has(entry)) return done;
  for (const i of unbulletedFieldLines(entry)) {
    entry.lines[i] = entry.lines[i]!.replace(/^\s*(?:[-*+]\s+)?/, "- ");
    done.todo = true;
  }
  return done;
}

function adoptOrDropExtraEntries(tx: Transaction): void {
  const archived = new Set(tx.archive().entries.map((e) => e.project_number));
  for (const entry of [...entries(tx.todo)]) {
    if (tx.findTask(entry.number)) continue;
    if (archived.has(entry.number)) {
      removeEntry(tx.todo, entry.number);
      continue;
    }
    const task: TaskEntry = {
      project_number: entry.number,
      project_name: slugify(entry.title, tx.config.slug),
      status: entryStatus(entry) ?? "not_started",
      language: getEntryField(entry, ["Language"])?.trim() || tx.config.defaultLanguage,
    };
    const description = getEntryDescription(entry);
    if (description) task.description = description;
    const effort = getEntryField(entry, ["Effort"]);
    if (effort) task.effort = effort.trim();
    task.created = tx.timestamp;
    task.last_updated = tx.timestamp;
    tx.tasks.push(task);
  }
}

function tryUnlink(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}
