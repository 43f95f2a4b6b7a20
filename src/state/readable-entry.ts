import { describeIssue } from "../shared/index.js";
import { ArtifactEntry, TaskEntry } from "./store-schema.js";

/**
 * The readable form of a state.json entry that does not match the schema: each field that cannot be read
 * as Baton reads it is converted when its meaning is plain (an `artifacts` object keyed by type, a number
 * written as a string) and otherwise left out. The entry itself is never changed; `problems` says what was
 * irregular and `repair` is the entry as `doctor --fix` would write it, when a repair loses nothing.
 */
export interface ReadableEntry {
  view: TaskEntry;
  problems: Array<{ field: string; message: string; missing: boolean }>;
  /** The repaired entry, or null when a repair would have to guess. */
  repair: Record<string, unknown> | null;
}

type Converter = (value: unknown, raw: Record<string, unknown>) => { value: unknown; guessed: boolean };

const drop = { value: undefined, guessed: true };

function textOf(value: unknown): { value: unknown; guessed: boolean } {
  if (typeof value === "number" || typeof value === "boolean")
    return { value: String(value), guessed: false };
  return drop;
}

function numbersOf(value: unknown): { value: unknown; guessed: boolean } {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[,\s]+/) : [value];
  const numbers = items
    .map((v) => (typeof v === "string" ? v.replace(/^(?:task\s*)?#?/i, "") : v))
    .filter((v) => v !== "" && v !== null && v !== undefined)
    .map(Number);
  const ok = numbers.every((n) => Number.isInteger(n));
  return { value: ok ? numbers : numbers.filter((n) => Number.isInteger(n)), guessed: !ok };
}

/** `{ research: ["reports/01_x.md"], plan: "plans/01_y.md" }` (an early ModelChecker form) as a list. */
function artifactsOf(value: unknown): { value: unknown; guessed: boolean } {
  if (typeof value !== "object" || value === null) return { value: [], guessed: value !== null };
  const list: unknown[] = [];
  let guessed = false;
  const items = Array.isArray(value)
    ? value.map((v) => [undefined, v] as const)
    : Object.entries(value).flatMap(([type, v]) =>
        (Array.isArray(v) ? v : [v]).map((item) => [type, item] as const),
      );
  for (const [type, item] of items) {
    const entry =
      typeof item === "string"
        ? type === undefined
          ? item
          : { path: item, type }
        : typeof item === "object" && item !== null && typeof (item as { path?: unknown }).path === "string"
          ? { ...item, ...(type !== undefined && !("type" in item) ? { type } : {}) }
          : undefined;
    if (entry !== undefined && ArtifactEntry.safeParse(entry).success) list.push(entry);
    else guessed = true;
  }
  return { value: list, guessed };
}

const CONVERTERS: Record<string, Converter> = {
  project_name: (value) => textOf(value),
  // A status that is not a word has no plain meaning: it reads as "unknown" and is never repaired by guess.
  status: () => drop,
  language: textOf,
  description: textOf,
  priority: textOf,
  effort: textOf,
  created: textOf,
  last_updated: textOf,
  session_id: textOf,
  dependencies: numbersOf,
  subtasks: numbersOf,
  parent_task: (value) => {
    const n = Number(typeof value === "string" ? value.replace(/^(?:task\s*)?#?/i, "") : value);
    return Number.isInteger(n) ? { value: n, guessed: false } : drop;
  },
  artifacts: artifactsOf,
};

/** What a required field reads as when it is missing or unreadable. */
function fallback(field: string, number: number): unknown {
  if (field === "project_name") return `task_${number}`;
  if (field === "status") return "unknown";
  return undefined;
}

/** The entry's task number, or null when it has none Baton can read (a string of digits counts). */
export function entryNumber(raw: unknown): number | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const value = (raw as { project_number?: unknown }).project_number;
  const n = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

export function readableEntry(raw: Record<string, unknown>, number: number): ReadableEntry {
  const view: Record<string, unknown> = structuredClone(raw);
  const repair: Record<string, unknown> = structuredClone(raw);
  let repairable = true;
  const problems: ReadableEntry["problems"] = [];
  if (raw["project_number"] !== number) {
    problems.push({
      field: "project_number",
      message: "project_number: a string, not a number",
      missing: false,
    });
    view["project_number"] = number;
    repair["project_number"] = number;
  }
  const issues = TaskEntry.safeParse(view, { reportInput: true }).error?.issues ?? [];
  const fields = [...new Set(issues.map((i) => String(i.path[0] ?? "")))];
  for (const field of fields) {
    const value = view[field];
    const missing = value === undefined;
    const issue = issues.find((i) => String(i.path[0]) === field);
    problems.push({ field, message: issue ? describeIssue(issue) : `${field}: unreadable`, missing });
    const converted = missing ? drop : (CONVERTERS[field]?.(value, raw) ?? drop);
    const readable = converted.value ?? fallback(field, number);
    if (readable === undefined) delete view[field];
    else view[field] = readable;
    if (converted.guessed || converted.value === undefined) repairable = false;
    else repair[field] = converted.value;
  }
  return { view: view as TaskEntry, problems, repair: repairable ? repair : null };
}
