import * as z from "zod/mini";
import { OPERATIONS, type Operation } from "./operation-names.js";

/** One value per operation, made from the one list (a fifth operation gets its entry without a new line here). */
export function everyOperation<T>(entry: (operation: Operation) => T): Record<Operation, T> {
  return Object.fromEntries(OPERATIONS.map((operation) => [operation, entry(operation)])) as Record<
    Operation,
    T
  >;
}

/** A strict object with one optional key per operation, each holding `value` (routes, budgets, timeouts, scripts). */
export function perOperation<T extends z.ZodMiniType>(value: T) {
  return z.strictObject(everyOperation(() => z.optional(value)));
}
