import { readFileSync, readlinkSync } from "node:fs";
import {
  FileFormatError,
  formatIssues,
  IoError,
  type JsonDocument,
  lineOfJsonPath,
  parseJsonDocument,
  validationIssues,
} from "../shared/index.js";
import { boundAbsent, present } from "../shared/present.js";
import { type IrregularEntries, noIrregularities, readIrregularEntries } from "./irregular-state.js";
import type { SpecsPaths } from "./paths.js";
import { isTaskEntry } from "./schema-fast.js";
import {
  ArchivedTask,
  ArchiveFile,
  ErrorEntry,
  ErrorsFile,
  StateFile,
  type TaskEntry,
} from "./store-schema.js";
import { parseTodo, type TodoDocument } from "./todo-document.js";

export interface LoadedState extends IrregularEntries {
  doc: JsonDocument<StateFile>;
  /**
   * The entries of `active_projects`, one per task number; editing them edits the document. An irregular
   * entry is here in its readable form (guarded), a number's second entry is held out of the list.
   */
  tasks: TaskEntry[];
  /** False when specs/state.json does not exist yet (a repository with no tasks). */
  exists: boolean;
}

export function readText(path: string): string | null {
  if (boundAbsent(path)) return null;
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" && boundAbsent(path, code)) return null;
    if (code === "ENOENT") return missingOrDangling(path, error);
    throw error;
  }
}

/** A missing file reads as absent; a symlink to nowhere is an error, never a file to create in its place. */
function missingOrDangling(path: string, cause: unknown): null {
  let target: string;
  try {
    target = readlinkSync(path);
  } catch {
    return null;
  }
  throw new IoError(`${path} is a symbolic link to ${target}, which does not exist`, {
    cause,
    hint: "Restore the link's target, or replace the link with the file itself; nothing was written.",
  });
}

export function readLatin1(path: string): string | null {
  if (boundAbsent(path)) return null;
  try {
    return readFileSync(path).toString("latin1");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || (code === "ENOTDIR" && boundAbsent(path, code))) return null;
    throw error;
  }
}

/**
 * `file:line: list[index] (task N)` for a message about one entry, the line being the entry's own (or,
 * given the path of a bad field inside it, that field's), never the first entry with the same number.
 */
function entryLabel(
  doc: JsonDocument,
  list: string,
  index: number,
  raw: unknown,
  field: ReadonlyArray<PropertyKey> = [],
): string {
  const number = (raw as { project_number?: unknown } | null)?.project_number;
  const inner = field.filter((p): p is string | number => typeof p !== "symbol");
  const line = lineOfJsonPath(doc.text, [list, index, ...inner]);
  const label = typeof number === "number" || typeof number === "string" ? ` (task ${String(number)})` : "";
  return `${doc.path}${line ? `:${line}` : ""}: ${list}[${index}]${label}`;
}

function topLabel(doc: JsonDocument, issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey> }>): string {
  const path = (issues[0]?.path ?? []).filter((p): p is string | number => typeof p !== "symbol");
  const line = path.length > 0 ? lineOfJsonPath(doc.text, path) : undefined;
  return `${doc.path}${line ? `:${line}` : ""}`;
}

export function loadState(paths: SpecsPaths): LoadedState {
  const text = readText(paths.state);
  if (text === null) {
    const doc = parseJsonDocument<StateFile>(
      paths.state,
      '{\n  "next_project_number": 1,\n  "active_projects": []\n}\n',
    );
    return {
      doc: { ...doc, text: "" },
      tasks: doc.value.active_projects as TaskEntry[],
      exists: false,
      ...noIrregularities(),
    };
  }
  const doc = parseJsonDocument<StateFile>(paths.state, text);
  const top = validationIssues(StateFile, doc.value);
  if (top) {
    throw new FileFormatError("STATE_SCHEMA", paths.state, `${topLabel(doc, top)}: ${formatIssues(top)}`, {
      hint: "state.json needs a numeric next_project_number and an active_projects array; nothing was written.",
    });
  }
  const tasks = doc.value.active_projects as TaskEntry[];
  // The common case costs one fast check per entry; only a store with an irregular entry pays for more.
  if (tasks.every(isTaskEntry) && new Set(tasks.map((t) => t.project_number)).size === tasks.length) {
    return { doc, tasks, exists: true, ...noIrregularities() };
  }
  return { doc, tasks, exists: true, ...readIrregularEntries(doc, tasks) };
}

export function loadTodo(paths: SpecsPaths): TodoDocument | null {
  const text = readText(paths.todo);
  return text === null ? null : parseTodo(paths.todo, text);
}

export interface LoadedArchive {
  doc: JsonDocument<ArchiveFile>;
  exists: boolean;
  /** `completed_projects`, where both the original and Baton put archived tasks (format reference 4). */
  entries: ArchivedTask[];
  /** The entries as loaded, so a write can prove it keeps every one of them without re-reading the file. */
  original: readonly ArchivedTask[];
}

export function loadArchive(paths: SpecsPaths): LoadedArchive {
  const text = readText(paths.archiveState);
  if (text === null) {
    const doc = parseJsonDocument<ArchiveFile>(
      paths.archiveState,
      '{\n  "archived_projects": [],\n  "completed_projects": []\n}\n',
    );
    return {
      doc: { ...doc, text: "", defaultText: doc.text },
      exists: false,
      entries: doc.value.completed_projects as ArchivedTask[],
      original: [],
    };
  }
  const doc = parseJsonDocument<ArchiveFile>(paths.archiveState, text);
  const top = validationIssues(ArchiveFile, doc.value);
  if (top) {
    throw new FileFormatError(
      "STATE_SCHEMA",
      paths.archiveState,
      `${topLabel(doc, top)}: ${formatIssues(top)}`,
    );
  }
  doc.value.completed_projects ??= [];
  const entries = doc.value.completed_projects as ArchivedTask[];
  entries.forEach((raw, index) => {
    const result = validationIssues(ArchivedTask, raw);
    if (result) {
      throw new FileFormatError(
        "STATE_SCHEMA",
        paths.archiveState,
        `${entryLabel(doc, "completed_projects", index, raw, result[0]?.path)}: ${formatIssues(result)}`,
        { hint: "Fix that archive entry; nothing was written." },
      );
    }
  });
  return { doc, exists: true, entries, original: [...entries] };
}

export interface LoadedErrors {
  doc: JsonDocument<ErrorsFile>;
  exists: boolean;
  entries: ErrorEntry[];
}

export function loadErrors(paths: SpecsPaths): LoadedErrors {
  const text = present(paths.errors) ? readText(paths.errors) : null;
  if (text === null) {
    const doc = parseJsonDocument<ErrorsFile>(
      paths.errors,
      '{\n  "_schema_version": "2.0.0",\n  "errors": []\n}\n',
    );
    return {
      doc: { ...doc, text: "", defaultText: doc.text },
      exists: false,
      entries: doc.value.errors as ErrorEntry[],
    };
  }
  const doc = parseJsonDocument<ErrorsFile>(paths.errors, text);
  const top = validationIssues(ErrorsFile, doc.value);
  if (top) {
    throw new FileFormatError("STATE_SCHEMA", paths.errors, `${topLabel(doc, top)}: ${formatIssues(top)}`);
  }
  const entries = doc.value.errors as ErrorEntry[];
  entries.forEach((raw, index) => {
    const result = validationIssues(ErrorEntry, raw);
    if (result) {
      throw new FileFormatError(
        "STATE_SCHEMA",
        paths.errors,
        `${entryLabel(doc, "errors", index, raw, result[0]?.path)}: ${formatIssues(result)}`,
      );
    }
  });
  return { doc, exists: true, entries };
}
