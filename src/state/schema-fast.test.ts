import { describe, expect, it } from "vitest";
import { isTaskEntry } from "./schema-fast.js";
import { TaskEntry } from "./store-schema.js";

function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  0,
  -1,
  1.5,
  2 ** 60,
  Number.NaN,
  "",
  "x",
  true,
  [],
  [1],
  ["a"],
  [null],
  {},
  { path: "p" },
  { path: 1 },
];

describe("the fast TaskEntry check", () => {
  it("agrees with the zod schema on thousands of mutated entries", () => {
    const random = rng(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const base = {
      project_number: 12,
      project_name: "slug",
      status: "planned",
      language: "lean",
      description: "d",
      priority: "high",
      effort: "2 hours",
      created: "2026-01-01",
      last_updated: "2026-01-02T00:00:00Z",
      session_id: "sess_1773703759_f69482",
      dependencies: [1, "Task 2"],
      parent_task: 3,
      subtasks: [4, 5],
      artifacts: ["specs/x.md", { path: "p", type: "research", summary: "s" }, { type: "plan", path: "q" }],
      unknown_field: { nested: [1, 2] },
    };
    const keys = Object.keys(base);
    let disagreements = 0;
    let rejected = 0;
    for (let i = 0; i < 5000; i++) {
      const entry: Record<string, unknown> = structuredClone(base);
      for (let k = 0, edits = 1 + Math.floor(random() * 3); k < edits; k++) {
        const key = pick(keys);
        const choice = random();
        if (choice < 0.15) delete entry[key];
        else if (choice < 0.3 && Array.isArray(entry[key])) (entry[key] as unknown[]).push(pick(ODD_VALUES));
        else entry[key] = pick(ODD_VALUES);
      }
      const zodSays = TaskEntry.safeParse(entry).success;
      if (!zodSays) rejected++;
      if (isTaskEntry(entry) !== zodSays) disagreements++;
    }
    expect(rejected).toBeGreaterThan(1000);
    expect(disagreements).toBe(0);
  });

  it("rejects what is not an object", () => {
    for (const v of [null, [], "task", 3]) {
      expect(isTaskEntry(v)).toBe(false);
      expect(TaskEntry.safeParse(v).success).toBe(false);
    }
  });
});
