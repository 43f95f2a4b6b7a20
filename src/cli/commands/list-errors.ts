import { loadConfig } from "../../config/index.js";
import { UsageError } from "../../shared/index.js";
import type { ErrorEntry } from "../../state/index.js";
import { type ErrorFilter, listErrors, requireStore, storeContext } from "../../state/index.js";

export async function errors(
  options: { repo: string } & Omit<ErrorFilter, "task" | "limit"> & {
      task?: string | undefined;
      limit?: string | undefined;
    },
): Promise<{ total: number; errors: ErrorEntry[] }> {
  const ctx = storeContext(await loadConfig(options.repo));
  requireStore(ctx);
  const task = options.task === undefined ? undefined : Number(options.task);
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (task !== undefined && !Number.isInteger(task))
    throw new UsageError(`--task "${options.task}" is not a number`);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new UsageError(`--limit must be a positive integer`);
  return listErrors(ctx, { ...options, task, limit });
}
