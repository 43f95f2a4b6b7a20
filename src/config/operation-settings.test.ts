import { describe, expect, it } from "vitest";
import type * as z from "zod/mini";
import { Script } from "../runners/script-schema.js";
import { OPERATIONS } from "../shared/operation-names.js";
import { BatonConfigFile } from "./config-schema.js";

const unknown = "review";

// Every setting keyed by operation is read from the one list: each operation is accepted, no other word is.
describe("settings per operation", () => {
  const cases: [string, z.ZodMiniType, (value: Record<string, unknown>) => unknown, unknown][] = [
    ["routing", BatonConfigFile, (v) => ({ routing: { general: v } }), "some-agent"],
    ["budgets.operation", BatonConfigFile, (v) => ({ budgets: { operation: v } }), 2.5],
    ["timeoutsMs", BatonConfigFile, (v) => ({ timeoutsMs: v }), 60_000],
    ["a script's operations", Script, (v) => ({ steps: [], operations: v }), []],
  ];
  it.each(cases)("%s: every operation of the one list, and nothing else", (_, schema, wrap, value) => {
    const every = Object.fromEntries(OPERATIONS.map((operation) => [operation, value]));
    expect(schema.safeParse(wrap(every)).success).toBe(true);
    expect(schema.safeParse(wrap({ [unknown]: value })).success).toBe(false);
  });
});
