import { type Irregularity, irregularEntryError } from "./irregularity.js";
import { entries, type TodoDocument, type TodoEntry } from "./todo-document.js";

/** Irregular TODO.md entries: recorded while parsing, and kept as read through any write. */

export function entryIrregularity(
  doc: TodoDocument,
  task: number,
  line: number,
  fields: Pick<Irregularity, "code" | "message" | "fix" | "fixable">,
): Irregularity {
  const found: Irregularity = { file: doc.path, line, task, writable: false, ...fields };
  doc.irregular.push(found);
  return found;
}

export function guardEntry(doc: TodoDocument, entry: TodoEntry, irregularity: Irregularity): void {
  if (!doc.guards.has(entry)) doc.guards.set(entry, { snapshot: entry.render("\n"), irregularity });
}

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
