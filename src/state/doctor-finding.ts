import type { StoreContext } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import type { TodoDocument } from "./todo-document.js";

export type FindingCode =
  | "STATE_UNREADABLE"
  | "TODO_UNREADABLE"
  | "ARCHIVE_UNREADABLE"
  | "IRREGULAR_ENTRY"
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
  /** 1-based line in `path`, when the finding is about one place in a file. */
  line?: number;
}

/** What doctor read of the store; null where a file was unreadable (its finding says why). */
export interface DoctorView {
  ctx: StoreContext;
  tasks: TaskEntry[];
  byNumber: Map<number, TaskEntry>;
  stateNext: number | null;
  todo: TodoDocument | null;
  todoText: string | null;
  archived: Array<{ project_number: number; status?: string; original_dirname?: unknown }>;
  archivedNumbers: Set<number>;
  /** Tasks with an irregular entry in either file: their fields are not trusted for repairs. */
  irregularTasks: Set<number>;
}
