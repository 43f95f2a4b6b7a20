import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BudgetGuard } from "../engine/run/budget-guard.js";
import { appendEvent, eventsDir, eventsPath } from "../shared/event-stream.js";
import { readEventIndex } from "./event-index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function root(): string {
  const dir = mkdtempSync(join(tmpdir(), "baton-events-"));
  dirs.push(dir);
  return dir;
}

const spend = (task: number, costUsd: number, ts = "2026-11-24T10:00:00.000Z") => ({
  kind: "agent" as const,
  ts,
  session: `sess_${task}`,
  task,
  operation: "research",
  costUsd,
  tokensIn: 10,
  tokensOut: 2,
});

describe("the event index", () => {
  it("sums spend by task, operation and day, reading only what was appended since", () => {
    const dir = root();
    appendEvent(dir, spend(1, 0.1));
    appendEvent(dir, spend(2, 0.25, "2026-11-25T01:00:00.000Z"));
    let index = readEventIndex(dir);
    expect(index.byTask["1"]).toEqual({ costUsd: 0.1, tokensIn: 10, tokensOut: 2, runs: 1 });
    expect(index.byDay["2026-11-25"]?.costUsd).toBe(0.25);
    appendEvent(dir, spend(1, 0.2));
    index = readEventIndex(dir);
    expect(index.byTask["1"]?.costUsd).toBe(0.3);
    expect(index.byOperation["research"]?.runs).toBe(3);
    // A torn last line (a writer killed mid-write) is left for later, never counted twice.
    writeFileSync(
      eventsPath(dir),
      '{"ts":"2026-11-24T10:00:00.000Z","kind":"agent","task":1,"costUsd":"5"}\n',
      {
        flag: "a",
      },
    );
    writeFileSync(eventsPath(dir), '{"kind":"agent","task":1,"costUsd":5', { flag: "a" });
    // Neither a line of another shape nor a torn one is counted.
    expect(readEventIndex(dir).byTask["1"]?.costUsd).toBe(0.3);
  });

  it("follows the stream across a rotation without losing or double-counting an event", () => {
    const dir = root();
    appendEvent(dir, spend(1, 0.1), 200);
    readEventIndex(dir);
    for (let i = 0; i < 6; i++) appendEvent(dir, spend(1, 0.1), 200);
    expect(readdirSync(eventsDir(dir)).length).toBeGreaterThan(2);
    expect(readEventIndex(dir).byTask["1"]).toMatchObject({ costUsd: 0.7, runs: 7 });
    rmSync(join(dir, ".baton", "cache"), { recursive: true });
    expect(readEventIndex(dir).byTask["1"]).toMatchObject({ costUsd: 0.7, runs: 7 });
  });

  it("keeps the latest results and refusals, and forgets a session once its operation ended", () => {
    const dir = root();
    appendEvent(dir, { kind: "operation", session: "s1", task: 1, outcome: "started" });
    appendEvent(dir, { kind: "phase", session: "s1", task: 1, phase: "2", outcome: "started" });
    expect(readEventIndex(dir).sessions["s1"]?.last.phase).toBe("2");
    appendEvent(dir, { kind: "hook", outcome: "deny", message: "no" });
    appendEvent(dir, { kind: "operation", session: "s1", task: 1, outcome: "done" });
    const index = readEventIndex(dir);
    expect(index.sessions["s1"]).toBeUndefined();
    expect(index.results.map((e) => e.outcome)).toEqual(["done"]);
    expect(index.refusals.map((e) => e.message)).toEqual(["no"]);
  });
});

describe("a budget guard", () => {
  it("lets the first run start, then refuses a start the largest run so far would push past the limit", () => {
    const guard = new BudgetGuard({ operation: 0.05 }, { task: 0, day: 0 });
    expect(guard.mayStart()).toBeUndefined();
    guard.finished("a", { costUsd: 0.02 });
    expect(guard.mayStart()).toBeUndefined();
    guard.finished("b", { costUsd: 0.02 });
    expect(guard.mayStart()).toMatchObject({ scope: "operation", spentUsd: 0.04, limitUsd: 0.05 });
  });

  it("counts what the task and the day spent before, and stops an agent whose streamed cost crosses", () => {
    const guard = new BudgetGuard({ task: 1, day: 2 }, { task: 0.9, day: 0.5 });
    expect(guard.onUsage("a", { costUsd: 0.05 })).toBe(false);
    expect(guard.onUsage("a", { costUsd: 0.15 })).toBe(true);
    expect(guard.stopped?.scope).toBe("task");
    expect(new BudgetGuard({ day: 2 }, { task: 0, day: 2 }).mayStart()?.scope).toBe("day");
  });
});
