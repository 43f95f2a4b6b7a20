import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../config/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { ScriptedRunner } from "../../runners/index.js";
import { readAllEvents } from "../../shared/event-stream.js";
import { addTask, mutateStore } from "../../state/index.js";
import { tempStore } from "../../testing/store-fixture.js";
import { runOperation } from "./headless-run.js";
import { closeSessionGate, openSessionGate } from "./in-session.js";
import { closeQueuedGate, openQueuedGate } from "./queued.js";

let cleanup = () => {};
afterEach(() => cleanup());

const REPORT = `# Research\n\n${"A finding with its evidence from src/lexer.ts. ".repeat(12)}\n`;

async function repoWithTask() {
  const t = await tempStore({ active: 0 });
  cleanup = t.cleanup;
  execFileSync("git", ["config", "user.email", "t@example.com"], { cwd: t.dir });
  execFileSync("git", ["config", "user.name", "Baton Test"], { cwd: t.dir });
  execFileSync("git", ["commit", "--allow-empty", "-qm", "init"], { cwd: t.dir });
  await mutateStore(t.ctx, { command: "t" }, (tx) =>
    addTask(tx, { title: "Study the lexer", language: "general" }),
  );
  execFileSync("git", ["add", "-A"], { cwd: t.dir });
  execFileSync("git", ["commit", "-qm", "task 1"], { cwd: t.dir });
  const config = { ...(await loadConfig(t.dir)), minArtifactBytes: 200 };
  return { dir: t.dir, config, request: { config, agentFiles: agentFileReaders(), taskNumber: 1 } };
}

/** The result a delegated agent leaves: its report and its metadata, for the session it was given. */
function writeResult(dir: string, session: string): void {
  const folder = "specs/1_study_the_lexer";
  mkdirSync(join(dir, folder, "reports"), { recursive: true });
  writeFileSync(join(dir, folder, "reports/research-001.md"), REPORT);
  writeFileSync(
    join(dir, folder, ".return-meta.json"),
    JSON.stringify({
      status: "researched",
      summary: "The lexer drops the last token.",
      artifacts: [{ type: "research", path: `${folder}/reports/research-001.md` }],
      metadata: { session_id: session, agent_type: "baton-researcher" },
    }),
  );
}

/** Each run's events that say how an operation ended (not that it started). */
function ends(dir: string) {
  return readAllEvents(dir).filter((e) => e.kind === "operation" && e.outcome !== "started");
}

const HOUR = 3_600_000;

// The executor writes a run's end whichever way it was driven: a run mode cannot leave it out.
describe("the end of every run, in the event stream", () => {
  it("a headless run: once, with the runner's usage and its time", async () => {
    const { dir, request } = await repoWithTask();
    const steps = [
      { write: "{task_folder}/reports/research-001.md", content: REPORT },
      { spend: { costUsd: 0.25, inputTokens: 40, outputTokens: 7 } },
      {
        writeMetadata: {
          status: "researched",
          summary: "s",
          artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md" }],
          metadata: { session_id: "{session_id}", agent_type: "scripted" },
        },
      },
    ];
    const report = await runOperation({
      ...request,
      operation: "research",
      runner: new ScriptedRunner({ script: { steps } as never }),
    });
    expect(report.result.ok).toBe(true);
    expect(ends(dir)).toEqual([
      expect.objectContaining({
        session: report.sessionId,
        outcome: "done",
        mode: "headless",
        costUsd: 0.25,
      }),
    ]);
    expect(ends(dir)[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("an in-session run: a refused gate-in once, and a gate-out once, timed from its gate-in", async () => {
    const { dir, request } = await repoWithTask();
    const refused = await openSessionGate({ ...request, operation: "implement" });
    expect(refused.ok).toBe(false);
    expect(ends(dir)).toEqual([expect.objectContaining({ operation: "implement", outcome: "refused" })]);

    const opened = await openSessionGate({ ...request, operation: "research" });
    if (!opened.ok) throw new Error(opened.reason);
    // As if gate-in had run an hour ago: the run's time counts from there, not from gate-out's start.
    const checkpoint = join(dir, "specs/.baton/checkpoints/1.json");
    const open = JSON.parse(readFileSync(checkpoint, "utf8"));
    writeFileSync(checkpoint, JSON.stringify({ ...open, startedMono: open.startedMono - HOUR }));
    writeResult(dir, opened.sessionId);
    // No host's hooks saw a sub-agent run here, so GATE OUT refuses: that is this run's end as well.
    const closed = await closeSessionGate({ ...request, operation: "research", sessionId: opened.sessionId });
    expect(closed.ok).toBe(false);
    const end = ends(dir).find((e) => e.session === opened.sessionId);
    expect(end).toMatchObject({ outcome: "failed", mode: "session", code: closed.ok ? "" : closed.code });
    expect(end?.durationMs).toBeGreaterThanOrEqual(HOUR);
    expect(ends(dir)).toHaveLength(2);
  });

  it("a queued run: once, when its worker's outcome is closed, with the worker's usage", async () => {
    const { dir, request } = await repoWithTask();
    const opened = await openQueuedGate({ ...request, operation: "research" });
    if (!opened.ok) throw new Error(opened.reason);
    expect(ends(dir)).toEqual([]);
    const closed = await closeQueuedGate({
      ...request,
      operation: "research",
      sessionId: opened.sessionId,
      outcome: { ok: false, reason: "timeout", message: "the worker's agent timed out", output: "" },
      usage: { costUsd: 0.5 },
    });
    expect(closed.ok).toBe(false);
    expect(ends(dir)).toEqual([
      expect.objectContaining({ outcome: "failed", code: "RUNNER_TIMEOUT", costUsd: 0.5 }),
    ]);
  });
});
