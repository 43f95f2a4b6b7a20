import { describe, expect, it } from "vitest";
import { type Effect, initialState, type RunEvent, type RunState, transition } from "./transition.js";

function run(events: RunEvent[]): { state: RunState; effects: Effect[] } {
  let state = initialState("research", 5, "sess_1773703759_f69482");
  const effects: Effect[] = [];
  for (const event of [{ type: "start" } as RunEvent, ...events]) {
    const [next, produced] = transition(state, event);
    state = next;
    effects.push(...produced);
  }
  return { state, effects };
}

const summary = (effects: Effect[]) =>
  effects.map((e) =>
    e.type === "journal" ? `${e.step}:${e.phase}${e.ok === undefined ? "" : e.ok ? "+" : "-"}` : e.type,
  );

const accepted = {
  ok: true as const,
  outcome: "done" as const,
  metadata: {
    status: "researched",
    summary: "s",
    artifacts: [],
    metadata: { session_id: "x", agent_type: "a" },
  },
  artifacts: [],
  signals: [],
};

describe("the checkpoint machine", () => {
  it("brackets every step with journal records, in order", () => {
    const { state, effects } = run([
      { type: "gate_in_passed" },
      { type: "agent_finished", outcome: { ok: true, output: "done" } },
      { type: "gate_out_checked", verdict: accepted },
      { type: "recorded" },
      { type: "commit_finished", committed: true },
    ]);
    expect(summary(effects)).toEqual([
      "GATE_IN:begin",
      "gate_in",
      "GATE_IN:end+",
      "DELEGATE:begin",
      "run_agent",
      "DELEGATE:end+",
      "GATE_OUT:begin",
      "check_result",
      "record_result",
      "GATE_OUT:end+",
      "COMMIT:begin",
      "commit",
      "COMMIT:end+",
    ]);
    expect(state).toMatchObject({
      phase: "finished",
      result: { ok: true, outcome: "done", committed: true },
    });
  });

  it("keeps a partial outcome through to the result", () => {
    const { state } = run([
      { type: "gate_in_passed" },
      { type: "agent_finished", outcome: { ok: true, output: "" } },
      { type: "gate_out_checked", verdict: { ...accepted, outcome: "partial" } },
      { type: "recorded" },
      { type: "commit_finished", committed: false, error: "nothing to commit" },
    ]);
    expect(state.result).toEqual({
      ok: true,
      outcome: "partial",
      committed: false,
      commitError: "nothing to commit",
    });
  });

  it("records a runner failure at DELEGATE and never checks or commits", () => {
    const { state, effects } = run([
      { type: "gate_in_passed" },
      {
        type: "agent_finished",
        outcome: { ok: false, reason: "timeout", message: "killed after 50 ms", output: "" },
      },
    ]);
    expect(summary(effects).slice(-2)).toEqual(["DELEGATE:end-", "record_failure"]);
    expect(state.result).toEqual({
      ok: false,
      checkpoint: "DELEGATE",
      code: "RUNNER_TIMEOUT",
      message: "killed after 50 ms",
    });
  });

  it("records a GATE OUT refusal with its own code", () => {
    const { state, effects } = run([
      { type: "gate_in_passed" },
      { type: "agent_finished", outcome: { ok: true, output: "" } },
      {
        type: "gate_out_checked",
        verdict: { ok: false, code: "META_SESSION_MISMATCH", message: "stale", signals: [] },
      },
    ]);
    expect(effects.at(-1)).toEqual({
      type: "record_failure",
      checkpoint: "GATE_OUT",
      code: "META_SESSION_MISMATCH",
      message: "stale",
    });
    expect(state.phase).toBe("finished");
  });

  it("writes nothing but the journal when GATE IN refuses", () => {
    const { state, effects } = run([{ type: "gate_in_refused", message: "task 5 is completed" }]);
    expect(summary(effects)).toEqual(["GATE_IN:begin", "gate_in", "GATE_IN:end-"]);
    expect(state.result).toMatchObject({ ok: false, code: "GATE_IN_REFUSED" });
  });
});

describe("the COMMIT checkpoint's journal record", () => {
  it("is a failure only when git refused, not when nothing was committed", () => {
    const state = {
      ...initialState("research", 5, "sess_1773703759_f69482"),
      phase: "commit" as const,
      outcome: "done" as const,
    };
    const [, empty] = transition(state, {
      type: "commit_finished",
      committed: false,
      error: "nothing to commit",
    });
    expect(empty).toEqual([
      { type: "journal", step: "COMMIT", phase: "end", ok: true, detail: { error: "nothing to commit" } },
    ]);
    const [, refused] = transition(state, {
      type: "commit_finished",
      committed: false,
      error: "hook refused",
      failed: true,
    });
    expect(refused).toEqual([
      { type: "journal", step: "COMMIT", phase: "end", ok: false, detail: { error: "hook refused" } },
    ]);
  });
});
