import { irregularEntryError } from "./irregularity.js";
import { entries, type TodoDocument, type TodoEntry } from "./todo-document.js";

/** Irregular TODO.md entries are kept as read through any write. */
/**
 * Refuses a write that would change or remove an irregular entry (`repaired` ones excepted: doctor --fix
 * writes their repair).
 */
export function checkTodoGuards(doc: TodoDocument, repaired: ReadonlySet<TodoEntry>): void {
  if (doc.guards.size === 0) return;
  const present = new Set(entries(doc));
  for (const [entry, guard] of doc.guards) {
    if (repaired.has(entry)) continue;
    if (!present.has(entry) || entry.render("\n") !== guard.snapshot)
      throw irregularEntryError(guard.irregularity);
  }
}
