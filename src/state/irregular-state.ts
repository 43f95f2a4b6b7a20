import { isCanonicalValue, type JsonDocument, jsonLineFinder } from "../shared/index.js";
import { type Irregularity, irregularEntryError } from "./irregularity.js";
import { entryNumber, type ReadableEntry, readableEntry } from "./readable-entry.js";
import type { StateFile, TaskEntry } from "./store-schema.js";

/** An irregular entry read in its readable form; at a write it goes back to the file exactly as read. */
export interface EntryGuard {
  raw: unknown;
  snapshot: string;
  irregularity: Irregularity;
  /** The entry as `doctor --fix` writes it, when a repair loses nothing. */
  repair: Record<string, unknown> | null;
}

/** An entry kept out of the task list (a number's second entry, one with no number), written back in place. */
export interface HeldEntry {
  raw: unknown;
  /** The entry that preceded it when read, to put it back after; null when it came first. */
  after: unknown;
  index: number;
  irregularity: Irregularity;
}

export interface IrregularEntries {
  irregular: Irregularity[];
  guards: Map<TaskEntry, EntryGuard>;
  held: HeldEntry[];
  /** Whether the file was in canonical form before any entry was replaced by its readable form. */
  canonical?: boolean;
}

export function noIrregularities(): IrregularEntries {
  return { irregular: [], guards: new Map(), held: [] };
}

/**
 * Replaces each irregular entry of `tasks` (the document's own array) by its readable form, and takes out
 * entries that cannot be listed: a second entry for a number (the first one is read, and guarded) and an
 * entry with no number. Nothing is lost: `stateForWrite` puts every one of them back as it was.
 */
export function readIrregularEntries(doc: JsonDocument<StateFile>, tasks: TaskEntry[]): IrregularEntries {
  const result: IrregularEntries = { ...noIrregularities(), canonical: isCanonicalValue(doc) };
  const firstAt = new Map<number, number>();
  const original = [...tasks];
  const lineOf = jsonLineFinder(doc.text);
  tasks.length = 0;
  for (const [index, raw] of original.entries()) {
    const at: EntryAt = { doc, lineOf, index, raw, after: index === 0 ? null : original[index - 1] };
    const number = entryNumber(raw);
    if (number === null) {
      hold(result, at, noNumber(at));
      continue;
    }
    const first = firstAt.get(number);
    if (first !== undefined) {
      const found = numberTwice(at, number, first);
      hold(result, at, found);
      guardTwice(result, tasks, number, found);
      continue;
    }
    firstAt.set(number, index);
    const readable = readableEntry(raw as Record<string, unknown>, number);
    if (readable.problems.length === 0) tasks.push(raw);
    else tasks.push(guardReadable(result, at, number, readable));
  }
  return result;
}

interface EntryAt {
  doc: JsonDocument<StateFile>;
  /** Lines of the file's paths, parsed once for every irregular entry. */
  lineOf: (path: ReadonlyArray<string | number>) => number | undefined;
  index: number;
  raw: TaskEntry;
  after: unknown;
}

function irregularityAt(
  at: EntryAt,
  fields: Omit<Irregularity, "file" | "line">,
  field?: string,
): Irregularity {
  const path: Array<string | number> = ["active_projects", at.index];
  const line = at.lineOf(field ? [...path, field] : path);
  return { file: at.doc.path, ...(line ? { line } : {}), ...fields };
}

function hold(result: IrregularEntries, at: EntryAt, found: Irregularity): void {
  result.held.push({ raw: at.raw, after: at.after, index: at.index, irregularity: found });
  result.irregular.push(found);
}

function noNumber(at: EntryAt): Irregularity {
  return irregularityAt(at, {
    code: "NO_NUMBER",
    message: `active_projects[${at.index}] has no readable project_number, so Baton cannot name it`,
    fix: `give active_projects[${at.index}] a "project_number" (the next free one, or the number of its folder)`,
    fixable: false,
    writable: false,
  });
}

function numberTwice(at: EntryAt, number: number, first: number): Irregularity {
  const firstLine = at.lineOf(["active_projects", first]) ?? "?";
  return irregularityAt(at, {
    code: "NUMBER_TWICE",
    task: number,
    message: `task ${number} is in active_projects twice (also active_projects[${first}], line ${firstLine}); Baton reads the first`,
    fix: `remove or renumber one of the two entries for task ${number}`,
    fixable: false,
    writable: false,
  });
}

/** The readable form goes into the task list; the entry as read is what a write puts back. */
function guardReadable(
  result: IrregularEntries,
  at: EntryAt,
  number: number,
  readable: ReadableEntry,
): TaskEntry {
  const problem = readable.problems[0]!;
  const repair = readable.repair;
  const fields = readable.problems.map((p) => `"${p.field}"`).join(", ");
  const found = irregularityAt(
    at,
    {
      code: problem.missing ? "FIELD_MISSING" : "FIELD_TYPE",
      task: number,
      message: `task ${number}: ${readable.problems.map((p) => p.message).join("; ")}`,
      fix: repair
        ? `write ${readable.problems.map((p) => `"${p.field}": ${JSON.stringify(repair[p.field])}`).join(", ")}`
        : `set ${fields} of task ${number} to what Baton expects (docs/store.md)`,
      fixable: repair !== null,
      writable: false,
    },
    problem.missing ? undefined : problem.field,
  );
  result.irregular.push(found);
  result.guards.set(readable.view, {
    raw: at.raw,
    snapshot: JSON.stringify(readable.view),
    irregularity: found,
    repair,
  });
  return readable.view;
}

/** The first entry of a number listed twice is read, but no write may change it while the second exists. */
function guardTwice(result: IrregularEntries, tasks: TaskEntry[], number: number, found: Irregularity): void {
  const first = tasks.find((t) => t.project_number === number)!;
  const existing = result.guards.get(first);
  if (existing) return;
  result.guards.set(first, {
    raw: first,
    snapshot: JSON.stringify(first),
    irregularity: found,
    repair: null,
  });
}

/**
 * The `active_projects` to write: every guarded entry as it was read (a changed or removed one refuses
 * the write, naming it), every held entry back after its neighbour.
 */
export function stateForWrite(
  state: IrregularEntries & { tasks: TaskEntry[] },
  repaired: ReadonlySet<TaskEntry> = new Set(),
): unknown[] {
  if (state.guards.size === 0 && state.held.length === 0) return state.tasks;
  const present = new Set<unknown>(state.tasks);
  for (const [view, guard] of state.guards) {
    if (repaired.has(view)) continue;
    if (!present.has(view) || JSON.stringify(view) !== guard.snapshot) {
      throw irregularEntryError(guard.irregularity);
    }
  }
  const out: unknown[] = state.tasks.map((t) =>
    repaired.has(t) ? (state.guards.get(t)?.repair ?? t) : (state.guards.get(t)?.raw ?? t),
  );
  for (const held of state.held) {
    const at = held.after === null ? 0 : out.indexOf(held.after) + 1;
    out.splice(at > 0 || held.after === null ? at : Math.min(held.index, out.length), 0, held.raw);
  }
  return out;
}
