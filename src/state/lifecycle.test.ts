import { describe, expect, it } from "vitest";
import {
  checkManualTransition,
  checkOperationStart,
  MANUAL_TRANSITIONS,
  OPERATION_RULES,
} from "./lifecycle.js";
import { TASK_STATUSES } from "./task-status.js";

describe("status lifecycle table", () => {
  it("lets each operation retry from its own in-progress status", () => {
    for (const [operation, rule] of Object.entries(OPERATION_RULES)) {
      expect(rule.from, operation).toContain(rule.inProgress);
    }
  });

  it("never starts an operation on a completed or abandoned task without --force", () => {
    for (const operation of ["research", "plan", "implement", "revise"] as const) {
      for (const status of ["completed", "abandoned"]) {
        const verdict = checkOperationStart(operation, status, false);
        expect(verdict.ok, `${operation} from ${status}`).toBe(false);
        expect(checkOperationStart(operation, status, true)).toEqual({ ok: true, forced: true });
      }
    }
  });

  it("sends a planned task to revise instead of plan", () => {
    const verdict = checkOperationStart("plan", "planned", false);
    expect(verdict).toEqual({
      ok: false,
      reason: "cannot plan: the task already has a plan; use `baton revise` to replace it",
    });
  });

  it("requires a plan before implement", () => {
    expect(checkOperationStart("implement", "researched", false).ok).toBe(false);
    expect(checkOperationStart("implement", "planned", false)).toEqual({ ok: true, forced: false });
    expect(checkOperationStart("implement", "partial", false)).toEqual({ ok: true, forced: false });
  });

  it("never lets a manual move write an in-progress status, even forced", () => {
    for (const to of ["researching", "planning", "implementing"]) {
      expect(checkManualTransition("not_started", to, true).ok).toBe(false);
    }
  });

  it("routes abandon and expand to their own commands", () => {
    expect(checkManualTransition("planned", "abandoned", false)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("task abandon"),
    });
    expect(checkManualTransition("planned", "expanded", false)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("task expand"),
    });
  });

  it("allows exactly the manual moves in the table, and any settled target with --force", () => {
    for (const from of TASK_STATUSES) {
      for (const [to, allowed] of Object.entries(MANUAL_TRANSITIONS)) {
        if (from === to) continue;
        const verdict = checkManualTransition(from, to, false);
        expect(verdict.ok, `${from} -> ${to}`).toBe(allowed!.includes(from));
        expect(checkManualTransition(from, to, true).ok).toBe(true);
      }
    }
  });

  it("explains a refused move with the statuses that are allowed", () => {
    expect(checkManualTransition("not_started", "completed", false)).toEqual({
      ok: false,
      reason:
        "cannot move from not_started to completed; completed may be set only from planned, implementing, partial (use --force to override, which is recorded on the task)",
    });
  });
});
