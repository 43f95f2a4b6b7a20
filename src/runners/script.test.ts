import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sampleRunRequest } from "../testing/run-request.js";
import type { RunRequest } from "./runner-types.js";
import { parseScript, planScript, type Script, selectSteps } from "./script.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-script-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const request = sampleRunRequest(dir);

function problem(value: unknown): string {
  const parsed = parseScript(value, "demo.json");
  return parsed.ok ? "(valid)" : parsed.message;
}

describe("script format", () => {
  it("accepts every kind of step", () => {
    const script = {
      description: "all steps",
      usage: { inputTokens: 10, costUsd: 0.01 },
      steps: [
        { write: "a.txt", content: "x" },
        { write: "/tmp/x", content: "", allowOutside: true },
        { writeMetadata: { status: "researched", metadata: { session_id: "{session_id}" } } },
        { output: "line" },
        { output: "warning", stream: "stderr" },
        { progress: "Running tests", tool: "Bash" },
        { sleepMs: 10 },
        { hang: true, ignoreSigterm: true },
        { crash: true },
        { exit: 3 },
      ],
    };
    expect(parseScript(script)).toEqual({ ok: true, script });
  });

  it("names the step and field of every mistake", () => {
    expect(problem({ steps: [{ write: "a.txt" }] })).toBe(
      "demo.json: steps[0].content: expected string (missing)",
    );
    expect(problem({ steps: [{ output: "ok" }, { exit: 300 }] })).toBe(
      "demo.json: steps[1].exit: must be at most 255",
    );
    expect(problem({ steps: [{ writ: "a.txt", content: "" }] })).toBe(
      "demo.json: steps[0]: no action; expected one of write, writeMetadata, output, progress, sleepMs, exit, hang, crash, spend",
    );
    expect(problem({ steps: [{ write: "a", content: "", exit: 1 }] })).toBe(
      "demo.json: steps[0]: one action per step, found write and exit",
    );
    expect(problem({ steps: [{ output: "x", colour: "red" }] })).toBe(
      'demo.json: steps[0]: unknown key "colour"',
    );
    expect(problem({ steps: [{ hang: false }] })).toContain("steps[0].hang");
    expect(problem({ steps: [{ writeMetadata: ["not", "an", "object"] }] })).toContain(
      "steps[0].writeMetadata",
    );
    expect(problem({ steps: ["exit"] })).toContain("steps[0]: expected an object");
    expect(problem({ step: [] })).toBe(
      'demo.json: (top level): no "steps", "phases" or "operations"; a script needs at least one; (top level): unknown key "step"',
    );
    expect(problem({ description: "nothing to do" })).toBe(
      'demo.json: (top level): no "steps", "phases" or "operations"; a script needs at least one',
    );
    expect(problem({ steps: [], usage: { turns: -1 } })).toBe("demo.json: usage.turns: must be at least 0");
  });

  it("substitutes placeholders in paths, contents, output and metadata strings", () => {
    const script: Script = {
      steps: [
        {
          write: "{task_folder}/reports/research-001.md",
          content: "# Task {task_number} ({operation})\n{kept}",
        },
        {
          writeMetadata: {
            status: "researched",
            metadata: { session_id: "{session_id}", n: 1, list: ["{task_name}"] },
          },
        },
        { output: "session {session_id}" },
      ],
    };
    const planned = planScript(script, request);
    expect(planned).toEqual({
      ok: true,
      plan: {
        steps: [
          {
            op: "write",
            path: join(dir, "specs/12_add_widget/reports/research-001.md"),
            content: "# Task 12 (research)\n{kept}",
            label: "specs/12_add_widget/reports/research-001.md",
          },
          {
            op: "write",
            path: join(dir, "specs/12_add_widget/.return-meta.json"),
            content: `${JSON.stringify(
              {
                status: "researched",
                metadata: { session_id: "sess_1773703759_f69482", n: 1, list: ["add_widget"] },
              },
              null,
              2,
            )}\n`,
            label: "specs/12_add_widget/.return-meta.json",
          },
          { op: "output", stream: "stdout", text: "session sess_1773703759_f69482" },
        ],
      },
    });
  });

  it("refuses writes outside the repository unless the step allows it", () => {
    const outside = (write: string) => planScript({ steps: [{ write, content: "" }] }, request);
    for (const path of ["../escape.txt", "/tmp/escape.txt", "specs/../../escape.txt"]) {
      const planned = outside(path);
      expect(planned.ok).toBe(false);
      if (!planned.ok) expect(planned.message).toMatch(/^steps\[0\]\.write: .* is outside the repository/);
    }
    expect(outside("..notes/inside.txt").ok).toBe(true);

    mkdirSync(join(dir, "real"), { recursive: true });
    symlinkSync(tmpdir(), join(dir, "link-out"));
    expect(outside("link-out/escape.txt").ok).toBe(false);
    expect(outside("real/new/inside.txt").ok).toBe(true);

    const allowed = planScript(
      { steps: [{ write: "../escape.txt", content: "", allowOutside: true }] },
      request,
    );
    expect(allowed.ok).toBe(true);

    const metaOutside = sampleRunRequest(dir, {
      context: { ...request.context, metadata_file_path: "../elsewhere/.return-meta.json" },
    });
    const refused = planScript({ steps: [{ writeMetadata: {} }] }, metaOutside);
    expect(refused.ok ? "" : refused.message).toContain("steps[0].writeMetadata (metadata_file_path)");
  });
});

/** A request for one phase of task 12's plan, at the given iteration. */
function phaseRequest(id: string, iteration?: number): RunRequest {
  return {
    ...request,
    context: {
      ...request.context,
      operation: "implement",
      ...(iteration === undefined ? {} : { iteration }),
      phase: {
        id,
        name: `Step ${id}`,
        dependencies: [],
        summary_path: `specs/12_add_widget/summaries/phase-${id}-summary.md`,
      },
    },
  };
}

describe("per-phase scripts", () => {
  const phased: Script = {
    steps: [{ output: "top level" }],
    phases: {
      "1": { steps: [{ output: "phase one" }] },
      "2a": { iterations: [[{ output: "2a first" }], [{ output: "2a second" }], [{ output: "2a stuck" }]] },
      "6.5": { steps: [{ output: "six and a half" }] },
      "*": { steps: [{ output: "any phase" }] },
    },
  };
  const outputOf = (script: Script, req: RunRequest) => {
    const selected = selectSteps(script, req);
    if (!selected.ok) return `error: ${selected.message}`;
    return selected.steps.map((step) => ("output" in step ? step.output : "?")).join(", ");
  };

  it("accepts phases with or without top-level steps", () => {
    expect(parseScript(phased)).toEqual({ ok: true, script: phased });
    const onlyPhases = { phases: { "*": { iterations: [[{ sleepMs: 5 }]] } } };
    expect(parseScript(onlyPhases)).toEqual({ ok: true, script: onlyPhases });
  });

  it("selects by phase id, then *, then the top-level steps; a run outside a phase gets the top level", () => {
    expect(outputOf(phased, phaseRequest("1"))).toBe("phase one");
    expect(outputOf(phased, phaseRequest("6.5"))).toBe("six and a half");
    expect(outputOf(phased, phaseRequest("3"))).toBe("any phase");
    expect(outputOf(phased, request)).toBe("top level");

    const { "*": _any, ...named } = phased.phases!;
    expect(outputOf({ ...phased, phases: named }, phaseRequest("3"))).toBe("top level");
    expect(selectSteps(phased, phaseRequest("1"))).toMatchObject({ at: ["phases", "1", "steps"] });
    expect(selectSteps(phased, request)).toMatchObject({ at: ["steps"] });
  });

  it("picks the iteration's list, repeating the last one for every later iteration", () => {
    expect(outputOf(phased, phaseRequest("2a"))).toBe("2a first");
    expect(outputOf(phased, phaseRequest("2a", 1))).toBe("2a first");
    expect(outputOf(phased, phaseRequest("2a", 2))).toBe("2a second");
    expect(outputOf(phased, phaseRequest("2a", 3))).toBe("2a stuck");
    expect(outputOf(phased, phaseRequest("2a", 17))).toBe("2a stuck");
    expect(selectSteps(phased, phaseRequest("2a", 17))).toMatchObject({
      at: ["phases", "2a", "iterations", 2],
    });
    // A `steps` entry is the same at every iteration.
    expect(outputOf(phased, phaseRequest("1", 4))).toBe("phase one");
    expect(outputOf(phased, phaseRequest("2a", 0))).toBe(
      "error: phase 2a: iteration 0 is not a whole number from 1",
    );
  });

  it("refuses a request the script has no steps for, naming the phase", () => {
    const onlyTwo: Script = { phases: { "2": { steps: [] } } };
    expect(outputOf(onlyTwo, phaseRequest("3"))).toBe(
      'error: phase 3 ("Step 3"): the script\'s "phases" has no "3" or "*" entry, and there are no top-level "steps"',
    );
    expect(outputOf(onlyTwo, request)).toBe(
      'error: the script has no top-level "steps" for a run outside a phase (it only has "phases")',
    );
    const planned = planScript(onlyTwo, phaseRequest("3"));
    expect(planned.ok ? "" : planned.message).toContain("phase 3");
  });

  it("substitutes the phase placeholders, empty outside a phase run", () => {
    const script: Script = {
      steps: [{ output: "[{phase_id}|{phase_name}|{iteration}|{summary_file}]" }],
      phases: {
        "*": {
          iterations: [
            [
              { output: "phase {phase_id} ({phase_name}), iteration {iteration}" },
              { write: "{summary_file}", content: "# Phase {phase_id} summary\nIteration {iteration}\n" },
            ],
          ],
        },
      },
    };
    const planned = planScript(script, phaseRequest("2a", 3));
    expect(planned).toEqual({
      ok: true,
      plan: {
        steps: [
          { op: "output", stream: "stdout", text: "phase 2a (Step 2a), iteration 3" },
          {
            op: "write",
            path: join(dir, "specs/12_add_widget/summaries/phase-2a-summary.md"),
            content: "# Phase 2a summary\nIteration 3\n",
            label: "specs/12_add_widget/summaries/phase-2a-summary.md",
          },
        ],
      },
    });
    expect(planScript(script, request)).toEqual({
      ok: true,
      plan: { steps: [{ op: "output", stream: "stdout", text: "[||1|]" }] },
    });
  });

  it("names the phase step of a write outside the repository", () => {
    const script: Script = { phases: { "2": { iterations: [[], [{ write: "../x.md", content: "" }]] } } };
    const planned = planScript(script, phaseRequest("2", 5));
    expect(planned.ok ? "" : planned.message).toMatch(
      /^phases\.2\.iterations\[1\]\[0\]\.write: \.\.\/x\.md is outside the repository/,
    );
  });

  it("names the exact field path of every mistake in phases", () => {
    expect(problem({ phases: { "2": { iterations: [[], [{ sleepMs: "soon" }]] } } })).toBe(
      'demo.json: phases.2.iterations[1][0].sleepMs: expected number, got "soon"',
    );
    expect(problem({ phases: { "*": { steps: [{ output: "ok" }, { write: "a.md" }] } } })).toBe(
      "demo.json: phases.*.steps[1].content: expected string (missing)",
    );
    expect(problem({ phases: { "6.5": { steps: [{ exit: 1, crash: true }] } } })).toBe(
      "demo.json: phases.6.5.steps[0]: one action per step, found exit and crash",
    );
    expect(problem({ phases: { "1": { iterations: [[{ hang: true }], "exit"] } } })).toBe(
      'demo.json: phases.1.iterations[1]: expected array, got "exit"',
    );
    expect(problem({ phases: { "1": { iterations: [[7]] } } })).toContain(
      "phases.1.iterations[0][0]: expected an object",
    );
    expect(problem({ phases: { "1": { steps: [], iterations: [[]] } } })).toBe(
      'demo.json: phases.1: either "steps" (every iteration) or "iterations" (one list each), not both',
    );
    expect(problem({ phases: { "1": {} } })).toBe('demo.json: phases.1: no "steps" and no "iterations"');
    expect(problem({ phases: { "1": { iterations: [] } } })).toBe(
      "demo.json: phases.1.iterations: empty; give at least one list of steps",
    );
    expect(problem({ phases: { "1": { step: [] } } })).toBe('demo.json: phases.1: unknown key "step"');
    expect(problem({ phases: { "1": [] } })).toBe("demo.json: phases.1: expected object, got array");
    expect(problem({ steps: [], phases: { "Phase 1": { steps: [] } } })).toBe(
      'demo.json: phases.Phase 1: not a phase id; expected "*" or a phase number as the plan writes it (1, 2a, 6.5)',
    );
    expect(problem({ phases: [] })).toBe("demo.json: phases: expected record, got array");
    expect(problem({ phases: {} })).toBe(
      "demo.json: phases: no entries and no top-level steps, so no run has anything to do",
    );
    expect(problem({ steps: [], phases: {} })).toBe("(valid)");
    // Every mistake is reported, top-level steps and phases alike.
    expect(problem({ steps: [{ exit: -1 }], phases: { "2": { steps: [{ sleepMs: 1.5 }] } } })).toBe(
      "demo.json: steps[0].exit: must be at least 0; phases.2.steps[0].sleepMs: expected int, got number 1.5",
    );
  });
});
