import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveGroupMembers } from "../shared/process-group.js";
import { bundleForTest } from "../testing/bundle.js";
import { recordingOptions, sampleRunRequest } from "../testing/run-request.js";
import { createRunner } from "./factory.js";
import type { RunRequest } from "./runner-types.js";
import { findPackageRoot, ScriptedRunner, scriptedAgentEntry } from "./scripted.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "baton-scripted-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The child runs the current sources, bundled once here, so these tests never depend on a stale dist/.
let agentEntry = "";
beforeAll(async () => {
  agentEntry = await bundleForTest(
    { entry: join(import.meta.dirname, "scripted-agent.ts") },
    join(root, "agent", "scripted-agent.mjs"),
  );
});

let repoCount = 0;
function repo(): string {
  const dir = join(root, `repo-${++repoCount}`);
  mkdirSync(dir);
  return dir;
}
const scripted = (script: unknown, extra: { killGraceMs?: number } = {}) =>
  new ScriptedRunner({ script, agentEntry, ...extra });

async function runIn(dir: string, script: unknown, overrides = {}, extra = {}) {
  const options = recordingOptions(overrides);
  const outcome = await scripted(script, extra).run(sampleRunRequest(dir), options);
  return { outcome, events: options.events };
}

describe("scripted runner", () => {
  it("writes files and return metadata with the session id, and reports lines and steps", async () => {
    const dir = repo();
    const { outcome, events } = await runIn(dir, {
      usage: { inputTokens: 1200, outputTokens: 300, costUsd: 0.02, turns: 3 },
      steps: [
        { progress: "Reading the task", tool: "Read" },
        { output: "researching task {task_number}" },
        { write: "{task_folder}/reports/research-001.md", content: "# Research for {task_name}\n" },
        {
          writeMetadata: {
            status: "researched",
            artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md", summary: "done" }],
            metadata: {
              session_id: "{session_id}",
              agent_type: "general-research-agent",
              delegation_depth: 1,
            },
          },
        },
        { output: "warning: slow", stream: "stderr" },
      ],
    });
    expect(outcome).toMatchObject({
      ok: true,
      exitCode: 0,
      usage: { inputTokens: 1200, costUsd: 0.02, turns: 3 },
    });
    expect(readFileSync(join(dir, "specs/12_add_widget/reports/research-001.md"), "utf8")).toBe(
      "# Research for add_widget\n",
    );
    const meta = JSON.parse(readFileSync(join(dir, "specs/12_add_widget/.return-meta.json"), "utf8"));
    expect(meta.metadata.session_id).toBe("sess_1773703759_f69482");
    expect(meta.artifacts[0].path).toBe("specs/12_add_widget/reports/research-001.md");

    expect(events[0]).toMatchObject({ type: "started", runner: "scripted", pid: outcome.pid });
    expect(events.slice(1)).toEqual([
      { type: "step", label: "Reading the task", tool: "Read" },
      { type: "output", stream: "stdout", line: "researching task 12" },
      { type: "step", label: "specs/12_add_widget/reports/research-001.md", tool: "Write" },
      { type: "step", label: "specs/12_add_widget/.return-meta.json", tool: "Write" },
      { type: "output", stream: "stderr", line: "warning: slow" },
      expect.objectContaining({ type: "finished", ok: true, exitCode: 0, usage: outcome.usage }),
    ]);
    expect(outcome.output).toContain("researching task 12\n");
    expect(outcome.stderr).toBe("warning: slow\n");
  });

  it("writes a deliberately wrong session id as given", async () => {
    const dir = repo();
    await runIn(dir, {
      steps: [{ writeMetadata: { status: "researched", metadata: { session_id: "sess_0_bad" } } }],
    });
    const meta = JSON.parse(readFileSync(join(dir, "specs/12_add_widget/.return-meta.json"), "utf8"));
    expect(meta.metadata.session_id).toBe("sess_0_bad");
  });

  it("exits with the scripted code, keeping the output before it and skipping the steps after", async () => {
    const dir = repo();
    const { outcome } = await runIn(dir, {
      steps: [
        { output: "TASK_ERROR: dependency_error - circular dependency" },
        { exit: 3 },
        { write: "never.txt", content: "" },
      ],
    });
    expect(outcome).toMatchObject({ ok: false, reason: "exit", exitCode: 3 });
    expect(outcome.output).toBe("TASK_ERROR: dependency_error - circular dependency\n");
    expect(existsSync(join(dir, "never.txt"))).toBe(false);
  });

  it("times out a hanging script, and kills one that ignores SIGTERM after the grace period", async () => {
    // Limits a loaded machine's Node start fits in: the script must print, and set its SIGTERM handler, first.
    const hang = await runIn(repo(), { steps: [{ output: "working" }, { hang: true }] }, { timeoutMs: 2000 });
    expect(hang.outcome).toMatchObject({
      ok: false,
      reason: "timeout",
      signal: "SIGTERM",
      output: "working\n",
    });
    expect(liveGroupMembers(hang.outcome.pid!)).toEqual([]);

    const stubborn = await runIn(
      repo(),
      { steps: [{ hang: true, ignoreSigterm: true }] },
      { timeoutMs: 2000 },
      { killGraceMs: 300 },
    );
    expect(stubborn.outcome).toMatchObject({ ok: false, reason: "timeout", signal: "SIGKILL" });
    expect(stubborn.outcome.durationMs).toBeGreaterThanOrEqual(2300);
  });

  it("reports a crash (death by SIGKILL) as crashed, after the files written before it", async () => {
    const dir = repo();
    const { outcome, events } = await runIn(dir, {
      steps: [{ write: "partial.txt", content: "half" }, { crash: true }],
    });
    expect(outcome).toMatchObject({ ok: false, reason: "crashed", signal: "SIGKILL", exitCode: null });
    expect(readFileSync(join(dir, "partial.txt"), "utf8")).toBe("half");
    expect(events.at(-1)).toMatchObject({ type: "finished", ok: false, reason: "crashed" });
  });

  it("stops on abort", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { outcome } = await runIn(repo(), { steps: [{ sleepMs: 60_000 }] }, { signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, reason: "aborted" });
  });

  it("refuses a write outside the repository before starting, unless the step allows it", async () => {
    const dir = repo();
    const { outcome, events } = await runIn(dir, { steps: [{ write: "../outside.txt", content: "x" }] });
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request", pid: null });
    if (!outcome.ok)
      expect(outcome.message).toContain("steps[0].write: ../outside.txt is outside the repository");
    expect(events).toEqual([expect.objectContaining({ type: "finished", reason: "invalid_request" })]);
    expect(existsSync(join(dir, "../outside.txt"))).toBe(false);

    const allowed = await runIn(dir, {
      steps: [{ write: "../outside.txt", content: "x", allowOutside: true }],
    });
    expect(allowed.outcome.ok).toBe(true);
    expect(readFileSync(join(dir, "../outside.txt"), "utf8")).toBe("x");
  });

  it("rejects an invalid inline script at construction and a script file at run time", async () => {
    expect(() => scripted({ steps: [{ write: "a.txt" }] })).toThrow(
      "script: steps[0].content: expected string (missing)",
    );

    const dir = repo();
    const file = join(root, "broken.json");
    writeFileSync(file, JSON.stringify({ steps: [{ output: "ok" }, { sleepMs: "soon" }] }));
    const runner = createRunner({ type: "scripted", script: "broken.json", agentEntry }, { baseDir: root });
    const options = recordingOptions();
    const outcome = await runner.run(sampleRunRequest(dir), options);
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request" });
    if (!outcome.ok) expect(outcome.message).toBe(`${file}: steps[1].sleepMs: expected number, got "soon"`);

    writeFileSync(file, "{ not json");
    const notJson = await runner.run(sampleRunRequest(dir), recordingOptions());
    if (!notJson.ok) expect(notJson.message).toContain(`${file}: invalid JSON`);

    // Edits to the file apply at the next run.
    writeFileSync(file, JSON.stringify({ steps: [{ output: "fixed" }] }));
    expect(await runner.run(sampleRunRequest(dir), recordingOptions())).toMatchObject({
      ok: true,
      output: "fixed\n",
    });
  });

  it("reports a missing agent entry as spawn_failed", async () => {
    const runner = new ScriptedRunner({ script: { steps: [] }, agentEntry: join(root, "nope.js") });
    const outcome = await runner.run(sampleRunRequest(repo()), recordingOptions());
    expect(outcome).toMatchObject({ ok: false, reason: "spawn_failed" });
    if (!outcome.ok) expect(outcome.message).toContain("npm run build");
  });

  it("finds the built agent in dist/ of the baton package, from the sources as from the bundle", async () => {
    const packageRoot = resolve(import.meta.dirname, "../..");
    expect(findPackageRoot(join(import.meta.dirname, "scripted.ts"))).toBe(packageRoot);
    expect(findPackageRoot(join(packageRoot, "dist", "chunks", "chunk-X.js"))).toBe(packageRoot);
    // A fresh directory: a fixed path like /tmp/x could itself hold a checkout of Baton.
    const outside = mkdtempSync(join(tmpdir(), "baton-no-package-"));
    expect(findPackageRoot(join(outside, "y.js"))).toBeNull();
    rmSync(outside, { recursive: true, force: true });
    expect(scriptedAgentEntry()).toBe(join(packageRoot, "dist", "runners", "scripted-agent.js"));

    // npm test builds first, as the e2e suite needs; this runs the real bundle end to end.
    const dir = repo();
    const runner = new ScriptedRunner({ script: { steps: [{ output: "from dist {session_id}" }] } });
    const outcome = await runner.run(sampleRunRequest(dir), recordingOptions());
    expect(outcome).toMatchObject({ ok: true, output: "from dist sess_1773703759_f69482\n" });
  });
});

/** A request for phase `id` of task 12's plan, as `baton implement` makes one per phase and iteration. */
function phaseRequest(dir: string, id: string, name: string, iteration: number): RunRequest {
  const request = sampleRunRequest(dir);
  return {
    ...request,
    context: {
      ...request.context,
      operation: "implement",
      iteration,
      phase: {
        id,
        name,
        dependencies: [],
        summary_path: `specs/12_add_widget/summaries/phase-${id}-summary.md`,
      },
    },
  };
}

describe("scripted runner, phase by phase", () => {
  const meta = (status: string, extra: Record<string, unknown> = {}) => ({
    writeMetadata: {
      status,
      summary: "Phase {phase_id}, iteration {iteration}",
      artifacts: [],
      metadata: { session_id: "{session_id}", agent_type: "scripted-implementer" },
      ...extra,
    },
  });
  const script = {
    phases: {
      "1": {
        steps: [
          { progress: "Phase {phase_id}: {phase_name}" },
          { sleepMs: 300 },
          { write: "{summary_file}", content: "# Phase {phase_id}: {phase_name}\n" },
          meta("implemented"),
        ],
      },
      "2": {
        steps: [{ output: "TASK_ERROR: build_error - phase {phase_id} does not compile" }, { exit: 1 }],
      },
      "3": {
        iterations: [
          [{ output: "iteration {iteration}: tests remain" }, meta("partial", { work_remaining: "tests" })],
          [{ write: "{summary_file}", content: "done at iteration {iteration}\n" }, meta("implemented")],
        ],
      },
      "*": { iterations: [[{ output: "phase {phase_id}, iteration {iteration}: still stuck" }]] },
    },
  };
  const runPhase = async (
    dir: string,
    id: string,
    name: string,
    iteration: number,
    use: unknown = script,
  ) => {
    const options = recordingOptions();
    const outcome = await scripted(use).run(phaseRequest(dir, id, name, iteration), options);
    return { outcome, events: options.events };
  };
  const readMeta = (dir: string) =>
    JSON.parse(readFileSync(join(dir, "specs/12_add_widget/.return-meta.json"), "utf8"));

  it("runs each phase's own steps, with the phase placeholders", async () => {
    const dir = repo();
    const one = await runPhase(dir, "1", "Set up", 1);
    expect(one.outcome).toMatchObject({ ok: true, exitCode: 0 });
    expect(one.outcome.durationMs).toBeGreaterThanOrEqual(300);
    expect(one.events[1]).toEqual({ type: "step", label: "Phase 1: Set up" });
    expect(readFileSync(join(dir, "specs/12_add_widget/summaries/phase-1-summary.md"), "utf8")).toBe(
      "# Phase 1: Set up\n",
    );
    expect(readMeta(dir)).toMatchObject({ status: "implemented", summary: "Phase 1, iteration 1" });

    const two = await runPhase(dir, "2", "Build", 1);
    expect(two.outcome).toMatchObject({
      ok: false,
      reason: "exit",
      exitCode: 1,
      output: "TASK_ERROR: build_error - phase 2 does not compile\n",
    });
  });

  it("runs a phase's iterations in turn: partial, then complete", async () => {
    const dir = repo();
    const first = await runPhase(dir, "3", "Tests", 1);
    expect(first.outcome.ok).toBe(true);
    expect(first.outcome.output).toContain("iteration 1: tests remain\n");
    expect(readMeta(dir)).toMatchObject({ status: "partial", work_remaining: "tests" });
    expect(existsSync(join(dir, "specs/12_add_widget/summaries/phase-3-summary.md"))).toBe(false);

    const second = await runPhase(dir, "3", "Tests", 2);
    expect(second.outcome.ok).toBe(true);
    expect(readMeta(dir)).toMatchObject({ status: "implemented", summary: "Phase 3, iteration 2" });
    expect(readFileSync(join(dir, "specs/12_add_widget/summaries/phase-3-summary.md"), "utf8")).toBe(
      "done at iteration 2\n",
    );
  });

  it('repeats the last iteration for ever: a stuck phase, here any phase through "*"', async () => {
    const dir = repo();
    for (const iteration of [1, 2, 5]) {
      const { outcome } = await runPhase(dir, "4b", "Anything", iteration);
      expect(outcome).toMatchObject({ ok: true, output: `phase 4b, iteration ${iteration}: still stuck\n` });
    }
  });

  it("refuses a phase the script has no steps for, and names the field of a mistake in a script file", async () => {
    const dir = repo();
    const { outcome, events } = await runPhase(dir, "7", "Docs", 1, { phases: { "1": { steps: [] } } });
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request", pid: null });
    if (!outcome.ok) expect(outcome.message).toContain('phase 7 ("Docs")');
    expect(events).toEqual([expect.objectContaining({ type: "finished", reason: "invalid_request" })]);

    // Top-level steps serve every phase without an entry.
    const fallback = await runPhase(dir, "7", "Docs", 1, { steps: [{ output: "generic {phase_id}" }] });
    expect(fallback.outcome).toMatchObject({ ok: true, output: "generic 7\n" });

    expect(() => scripted({ phases: { "2": { iterations: [[{ sleepMs: -1 }]] } } })).toThrow(
      "script: phases.2.iterations[0][0].sleepMs: must be at least 0",
    );
    const file = join(root, "phased-broken.json");
    writeFileSync(file, JSON.stringify({ phases: { "2": { iterations: [[], [{ sleepMs: "soon" }]] } } }));
    const runner = createRunner({ type: "scripted", script: file, agentEntry });
    const broken = await runner.run(phaseRequest(dir, "2", "Build", 1), recordingOptions());
    expect(broken).toMatchObject({ ok: false, reason: "invalid_request" });
    if (!broken.ok) {
      expect(broken.message).toBe(`${file}: phases.2.iterations[1][0].sleepMs: expected number, got "soon"`);
    }
  });
});
