import type { Checkpoint } from "../shared/run-words.js";
import { loadErrors } from "./load-store.js";
import type { Level } from "./naming.js";
import type { StoreContext, Transaction } from "./store.js";
import type { ErrorEntry } from "./store-schema.js";

export interface ErrorFilter {
  type?: string | undefined;
  task?: number | undefined;
  session?: string | undefined;
  severity?: string | undefined;
  fixStatus?: string | undefined;
  checkpoint?: string | undefined;
  since?: string | undefined;
  limit?: number | undefined;
}

function matchesErrorFilter(entry: ErrorEntry, filter: ErrorFilter): boolean {
  const ctx = entry.context ?? {};
  if (filter.type && entry.type !== filter.type) return false;
  if (filter.task !== undefined && (ctx.task == null || Number(ctx.task) !== filter.task)) return false;
  if (filter.session && ctx.session_id !== filter.session) return false;
  if (filter.severity && entry.severity !== filter.severity) return false;
  if (filter.fixStatus && (entry.fix_status ?? "unfixed") !== filter.fixStatus) return false;
  if (filter.checkpoint && ctx.checkpoint !== filter.checkpoint) return false;
  if (filter.since && (entry.timestamp ?? "") < filter.since) return false;
  return true;
}

/** errors.json entries matching the filter, newest first. */
export function listErrors(
  ctx: StoreContext,
  filter: ErrorFilter = {},
): { total: number; errors: ErrorEntry[] } {
  const loaded = loadErrors(ctx.paths);
  const matching = loaded.entries
    .filter((e) => matchesErrorFilter(e, filter))
    .sort((a, b) => (b.timestamp ?? "").localeCompare(a.timestamp ?? ""));
  return { total: loaded.entries.length, errors: filter.limit ? matching.slice(0, filter.limit) : matching };
}

export interface NewError {
  type: string;
  severity: Level;
  message: string;
  sessionId?: string | undefined;
  command?: string | undefined;
  task?: number | undefined;
  checkpoint?: Checkpoint | undefined;
  delegationPath?: string[] | undefined;
  suggestedAction?: string | undefined;
}

/** Appends an entry in the schema-2.0.0 shape (format reference 5); the id is unique within the file. */
export function appendError(tx: Transaction, input: NewError): ErrorEntry {
  const log = tx.errors();
  const ids = new Set(log.entries.map((e) => e.id));
  let millis = tx.now.getTime();
  while (ids.has(`err_${millis}`)) millis++;
  const entry: ErrorEntry = {
    id: `err_${millis}`,
    timestamp: tx.timestamp,
    type: input.type,
    severity: input.severity,
    message: input.message,
    context: {
      session_id: input.sessionId ?? null,
      command: input.command ?? null,
      task: input.task ?? null,
      checkpoint: input.checkpoint ?? null,
    },
    trajectory: {
      delegation_path: input.delegationPath ?? [],
      failed_at_depth: Math.max(0, (input.delegationPath?.length ?? 1) - 1),
    },
    recovery: { suggested_action: input.suggestedAction ?? "", auto_recoverable: false },
    fix_status: "unfixed",
    fixed_date: null,
    fix_task: null,
    recurrence_count: 1,
  };
  log.entries.push(entry);
  return entry;
}
