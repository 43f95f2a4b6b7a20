import { describe, expect, it } from "vitest";
import {
  initialPlanRun,
  type PhaseOutcome,
  type PhaseSpec,
  type PlanEffect,
  type PlanRunEvent,
  type PlanRunState,
  phaseTransition,
} from "./phase-transition.js";

const spec = (id: string, dependencies: string[] = [], settled = false): PhaseSpec => ({
  id,
  name: `Phase ${id}`,
  dependencies,
  settled,
});

function start(phases: PhaseSpec[], waves: string[][], options: Partial<PlanRunState> = {}) {
  let state = initialPlanRun({
    phases,
    waves,
    concurrency: options.concurrency ?? 4,
    maxIterations: options.maxIterations ?? 5,
    orderedRecords: options.orderedRecords ?? false,
  });
  const log: PlanEffect[] = [];
  const send = (event: PlanRunEvent) => {
    const [next, effects] = phaseTransition(state, event);
    state = next;
    log.push(...effects);
    return effects;
  };
  send({ type: "start" });
  return {
    send,
    log,
    get state() {
      return state;
    },
  };
}

const ran = (id: string, outcome: PhaseOutcome): PlanRunEvent => ({ type: "phase_ran", id, outcome });
const recorded = (id: string): PlanRunEvent => ({ type: "phase_recorded", id });
const runs = (effects: PlanEffect[]) =>
  effects
    .filter((e) => e.type === "run_phase")
    .map((e) => (e.type === "run_phase" ? `${e.id}#${e.iteration}` : ""));

describe("phase scheduler", () => {
  it("runs a wave's phases together and starts the next wave only when all are recorded", () => {
    const run = start([spec("1"), spec("2"), spec("3", ["1", "2"])], [["1", "2"], ["3"]]);
    expect(runs(run.log)).toEqual(["1#1", "2#1"]);
    run.send(ran("1", { kind: "complete" }));
    expect(runs(run.send(recorded("1")))).toEqual([]);
    run.send(ran("2", { kind: "complete" }));
    const next = run.send(recorded("2"));
    expect(next.map((e) => e.type)).toEqual(["wave_finished", "wave_started", "run_phase"]);
    run.send(ran("3", { kind: "complete" }));
    expect(run.send(recorded("3")).at(-1)).toEqual({ type: "plan_finished", outcome: "done" });
  });

  it("never runs more than `concurrency` agents at once", () => {
    const run = start(
      ["1", "2", "3", "4", "5"].map((id) => spec(id)),
      [["1", "2", "3", "4", "5"]],
      {
        concurrency: 2,
      },
    );
    expect(runs(run.log)).toEqual(["1#1", "2#1"]);
    expect(runs(run.send(ran("2", { kind: "complete" })))).toEqual(["3#1"]);
    run.send(recorded("2"));
    expect(runs(run.send(ran("1", { kind: "complete" })))).toEqual(["4#1"]);
  });

  it("blocks the dependents of a failed phase and lets independent phases go on", () => {
    const run = start(
      [spec("1"), spec("2"), spec("3", ["1"]), spec("4", ["2"]), spec("5", ["3"])],
      [["1", "2"], ["3", "4"], ["5"]],
    );
    run.send(ran("1", { kind: "failed", code: "SUMMARY_TOO_SMALL", message: "stub" }));
    run.send(recorded("1"));
    run.send(ran("2", { kind: "complete" }));
    const wave2 = run.send(recorded("2"));
    expect(wave2).toContainEqual({ type: "wave_started", wave: 1, phases: ["4"] });
    expect(wave2).toContainEqual({
      type: "record_phase",
      id: "3",
      verdict: { kind: "dependency_blocked", dependency: "1", message: "Phase 1 did not complete" },
    });
    expect(runs(wave2)).toEqual(["4#1"]);
    run.send(recorded("3"));
    run.send(ran("4", { kind: "complete" }));
    const end = run.send(recorded("4"));
    expect(end).toContainEqual(expect.objectContaining({ type: "record_phase", id: "5" }));
    expect(run.send(recorded("5")).at(-1)).toEqual({ type: "plan_finished", outcome: "partial" });
  });

  it("calls a phase again with what remains, and stops it as stuck when that is unchanged twice", () => {
    const run = start([spec("1")], [["1"]]);
    const again = run.send(ran("1", { kind: "remaining", remaining: "Lemma 3 open" }));
    expect(again).toEqual([{ type: "run_phase", id: "1", iteration: 2, continuation: "Lemma 3 open" }]);
    expect(runs(run.send(ran("1", { kind: "remaining", remaining: " Lemma 3  open\n" })))).toEqual(["1#3"]);
    const stuck = run.send(ran("1", { kind: "remaining", remaining: "Lemma 3 open" }));
    expect(stuck[0]).toMatchObject({
      type: "record_phase",
      verdict: { kind: "partial", reason: "stuck", iterations: 3 },
    });
  });

  it("stops at the iteration limit when the remaining work keeps changing", () => {
    const run = start([spec("1")], [["1"]], { maxIterations: 3 });
    run.send(ran("1", { kind: "remaining", remaining: "a" }));
    run.send(ran("1", { kind: "remaining", remaining: "b" }));
    const last = run.send(ran("1", { kind: "remaining", remaining: "c" }));
    expect(last[0]).toMatchObject({ verdict: { kind: "partial", reason: "max_iterations", iterations: 3 } });
    expect(run.send(recorded("1")).at(-1)).toEqual({ type: "plan_finished", outcome: "partial" });
  });

  it("calls a phase again with a failed check, and fails it with that check once iterations run out", () => {
    const run = start([spec("1"), spec("2", ["1"])], [["1"], ["2"]], { maxIterations: 2 });
    const again = run.send(ran("1", { kind: "retry", code: "CHECK_FAILED", message: 'check "t" failed' }));
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ type: "run_phase", id: "1", iteration: 2 });
    expect((again[0] as { continuation: string }).continuation).toContain('check "t" failed');
    const last = run.send(ran("1", { kind: "retry", code: "CHECK_FAILED", message: 'check "t" failed' }));
    expect(last[0]).toMatchObject({
      type: "record_phase",
      verdict: { kind: "failed", code: "CHECK_FAILED", iterations: 2 },
    });
    // A failed check blocks dependents like any failure.
    expect(runs(run.send(recorded("1")))).toEqual([]);
  });

  it("keeps the whole story of a refused phase: each refused iteration's reason, in order, with the last", () => {
    const run = start([spec("1")], [["1"]], { maxIterations: 3 });
    const failing = 'check "tests" (`npm test`) failed: exit code 1\n    not ok 2 - adds negatives';
    run.send(ran("1", { kind: "retry", code: "CHECK_FAILED", message: failing }));
    run.send(ran("1", { kind: "retry", code: "CHECKS_TAMPERED", message: "test/sum.test.js changed" }));
    const last = run.send(
      ran("1", { kind: "failed", code: "SUMMARY_UNCHANGED", message: "the summary is the last one" }),
    );
    const verdict = (last[0] as { verdict: { message: string; earlier: unknown[] } }).verdict;
    expect(verdict).toMatchObject({ kind: "failed", code: "SUMMARY_UNCHANGED", iterations: 3 });
    expect(verdict.earlier).toEqual([
      { iteration: 1, code: "CHECK_FAILED", message: failing },
      { iteration: 2, code: "CHECKS_TAMPERED", message: "test/sum.test.js changed" },
    ]);
    expect(verdict.message).toMatch(
      /the summary is the last one\nEarlier iterations:\n {2}iteration 1 refused: CHECK_FAILED: check "tests" \(`npm test`\) failed: exit code 1\n {4}.*not ok 2 - adds negatives\n {2}iteration 2 refused: CHECKS_TAMPERED/,
    );
  });

  it("a retried phase that then completes is complete", () => {
    const run = start([spec("1")], [["1"]]);
    run.send(ran("1", { kind: "retry", code: "CHECK_FAILED", message: "x" }));
    expect(run.send(ran("1", { kind: "complete" }))[0]).toMatchObject({
      verdict: { kind: "complete", iterations: 2 },
    });
  });

  it("skips settled phases and treats them as satisfied dependencies (resume)", () => {
    const run = start([spec("1", [], true), spec("2", ["1"]), spec("3", ["2"])], [["1"], ["2"], ["3"]]);
    expect(runs(run.log)).toEqual(["2#1"]);
    run.send(ran("2", { kind: "complete" }));
    expect(runs(run.send(recorded("2")))).toEqual(["3#1"]);
  });

  it("finishes at once when every phase is already complete", () => {
    const run = start([spec("1", [], true)], [["1"]]);
    expect(run.log.at(-1)).toEqual({ type: "plan_finished", outcome: "done" });
  });

  it("records in plan order in ordered mode, even when a later phase finishes first", () => {
    const run = start([spec("1"), spec("2")], [["1", "2"]], { orderedRecords: true });
    expect(run.send(ran("2", { kind: "complete" }))).toEqual([]);
    const first = run.send(ran("1", { kind: "complete" }));
    expect(first).toEqual([{ type: "record_phase", id: "1", verdict: { kind: "complete", iterations: 1 } }]);
    expect(run.send(recorded("1"))).toEqual([
      { type: "record_phase", id: "2", verdict: { kind: "complete", iterations: 1 } },
    ]);
  });

  it("uses the recorder's verdict when it downgrades one (a worktree that could not be merged)", () => {
    const run = start([spec("1"), spec("2", ["1"])], [["1"], ["2"]]);
    run.send(ran("1", { kind: "complete" }));
    const after = run.send({
      type: "phase_recorded",
      id: "1",
      verdict: { kind: "failed", code: "MERGE_CONFLICT", message: "a.ts", iterations: 1 },
    });
    expect(after).toContainEqual(
      expect.objectContaining({
        type: "record_phase",
        id: "2",
        verdict: expect.objectContaining({ kind: "dependency_blocked" }),
      }),
    );
  });

  it("starts nothing new after stop and ends with the phases that ran", () => {
    const run = start([spec("1"), spec("2"), spec("3")], [["1", "2", "3"]], { concurrency: 1 });
    run.send({ type: "stop", message: "interrupted" });
    expect(runs(run.send(ran("1", { kind: "complete" })))).toEqual([]);
    expect(run.send(recorded("1")).at(-1)).toEqual({ type: "plan_finished", outcome: "partial" });
    expect(run.state.phases["2"]).toEqual({ status: "pending" });
  });

  it("reports failed when nothing completed or progressed", () => {
    const run = start([spec("1")], [["1"]]);
    run.send(ran("1", { kind: "blocked", code: "AGENT_BLOCKED", message: "needs a decision" }));
    expect(run.send(recorded("1")).at(-1)).toEqual({ type: "plan_finished", outcome: "failed" });
  });
});
