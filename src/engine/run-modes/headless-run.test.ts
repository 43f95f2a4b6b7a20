import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../config/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { ScriptedRunner } from "../../runners/index.js";
import { IoError } from "../../shared/errors.js";
import { groupAlive } from "../../shared/process-group.js";
import {
  addTask,
  loadErrors,
  mutateStore,
  readStore,
  requireTask,
  runDoctorChecks,
  storeContext,
} from "../../state/index.js";
import { tempStore } from "../../testing/store-fixture.js";
import { runOperation } from "./headless-run.js";

let cleanup = () => {};
afterEach(() => cleanup());

const REPORT = `# Research Report: Parser crash\n\n${"Finding with evidence from src/parser.ts line 12. ".repeat(12)}\n`;
const metadata = (overrides: Record<string, unknown> = {}) => ({
  writeMetadata: {
    status: "researched",
    summary: "Found the cause",
    artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md", summary: "Root cause" }],
    metadata: { session_id: "{session_id}", agent_type: "scripted-researcher" },
    ...overrides,
  },
});

async function repoWithTask() {
  const t = await tempStore({ active: 0 });
  cleanup = t.cleanup;
  execFileSync(
    "git",
    ["-c", "user.email=t@e", "-c", "user.name=T", "commit", "--allow-empty", "-qm", "init"],
    { cwd: t.dir },
  );
  execFileSync("git", ["config", "user.email", "t@example.com"], { cwd: t.dir });
  execFileSync("git", ["config", "user.name", "Baton Test"], { cwd: t.dir });
  await mutateStore(t.ctx, { command: "t" }, (tx) =>
    addTask(tx, { title: "Parser crash", language: "general" }),
  );
  const config = await loadConfig(t.dir);
  return { ...t, config: { ...config, minArtifactBytes: 200 } };
}

function research(
  config: Awaited<ReturnType<typeof repoWithTask>>["config"],
  steps: unknown[],
  timeoutMs = 20_000,
) {
  return runOperation({
    agentFiles: agentFileReaders(),
    config: { ...config, timeoutsMs: { ...config.timeoutsMs, research: timeoutMs } },
    operation: "research",
    taskNumber: 1,
    runner: new ScriptedRunner({ script: { steps } as never }),
  });
}

describe("an operation run through the checkpoints", () => {
  it("records, links and commits a verified result", async () => {
    const t = await repoWithTask();
    const report = await research(t.config, [
      { progress: "Reading the parser", tool: "Read" },
      { write: "{task_folder}/reports/research-001.md", content: REPORT },
      metadata(),
    ]);
    expect(report.result).toEqual({ ok: true, outcome: "done", committed: true });
    expect(report).toMatchObject({
      status: "researched",
      agent: "baton-researcher",
      artifacts: ["specs/1_parser_crash/reports/research-001.md"],
    });
    const task = readStore(storeContext(t.config)).state.tasks[0]!;
    expect(task).toMatchObject({
      status: "researched",
      session_id: report.sessionId,
      artifacts: [{ path: "specs/1_parser_crash/reports/research-001.md", summary: "Root cause" }],
    });
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toContain(
      "- **Research**: [research-001.md](specs/1_parser_crash/reports/research-001.md)",
    );
    const folder = join(t.dir, "specs/1_parser_crash");
    // The control files are gone; the evidence of this checkpoint stays, and is committed with it.
    expect(readdirSync(folder).sort()).toEqual(["evidence", "reports"]);
    expect(readdirSync(join(folder, "evidence"))).toEqual([`${report.sessionId}-research.json`]);
    const log = execFileSync("git", ["log", "-1", "--format=%B", "--name-only"], {
      cwd: t.dir,
      encoding: "utf8",
    });
    expect(log).toContain(`task 1: complete research\n\nSession: ${report.sessionId}\n`);
    expect(log).toContain("specs/1_parser_crash/reports/research-001.md");
    expect(log).not.toContain(".return-meta.json");
    expect(log).toContain(`specs/1_parser_crash/evidence/${report.sessionId}-research.json`);
    expect(existsSync(join(t.dir, "specs/.baton/checkpoints/1.json"))).toBe(false);
    const journal = readFileSync(join(t.dir, report.journal), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(journal.map((r) => `${r.step}:${r.phase}`)).toEqual([
      "GATE_IN:begin",
      "GATE_IN:end",
      "DELEGATE:begin",
      "AGENT:begin",
      "DELEGATE:end",
      "GATE_OUT:begin",
      "GATE_OUT:end",
      "COMMIT:begin",
      "COMMIT:end",
    ]);
  });

  it.each([
    [
      "a stub report",
      [{ write: "{task_folder}/reports/research-001.md", content: "# TODO\n" }, metadata()],
      "ARTIFACT_TOO_SMALL",
    ],
    ["no metadata", [{ write: "{task_folder}/reports/research-001.md", content: REPORT }], "META_MISSING"],
    [
      "a wrong session id",
      [
        { write: "{task_folder}/reports/research-001.md", content: REPORT },
        metadata({ metadata: { session_id: "sess_1700000000_abcdef", agent_type: "x" } }),
      ],
      "META_SESSION_MISMATCH",
    ],
    [
      "status completed",
      [
        { write: "{task_folder}/reports/research-001.md", content: REPORT },
        metadata({ status: "completed" }),
      ],
      "META_STATUS_COMPLETED",
    ],
    [
      "a TASK_ERROR signal",
      [
        { output: "TASK_ERROR: cannot reach the docs" },
        { write: "{task_folder}/reports/research-001.md", content: REPORT },
        metadata(),
      ],
      "AGENT_REPORTED_ERROR",
    ],
    [
      "malformed metadata",
      [
        { write: "{task_folder}/reports/research-001.md", content: REPORT },
        { write: "{task_folder}/.return-meta.json", content: '{"status": "researched",' },
      ],
      "META_INVALID_JSON",
    ],
    [
      "an empty artifact",
      [{ write: "{task_folder}/reports/research-001.md", content: "" }, metadata()],
      "ARTIFACT_EMPTY",
    ],
    ["a missing artifact", [metadata()], "ARTIFACT_MISSING"],
    [
      "an artifact outside the task folder",
      [
        // Beside specs/, not in it: the sandbox lets no agent add an entry to the store's folder.
        { write: "notes/elsewhere.md", content: REPORT },
        metadata({ artifacts: [{ type: "research", path: "{task_folder}/../../notes/elsewhere.md" }] }),
      ],
      "ARTIFACT_OUTSIDE_TASK",
    ],
    ["a crash", [{ crash: true }], "RUNNER_CRASHED"],
    ["a non-zero exit", [{ exit: 3 }], "RUNNER_EXIT"],
  ])(
    "refuses %s with its own code, keeps the task retryable and commits nothing",
    async (_name, steps, code) => {
      const t = await repoWithTask();
      const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: t.dir, encoding: "utf8" });
      const report = await research(t.config, steps);
      expect(report.result).toMatchObject({ ok: false, code });
      expect(report.status).toBe("researching");
      expect(loadErrors(t.ctx.paths).entries.at(-1)).toMatchObject({
        type: code.toLowerCase(),
        context: { session_id: report.sessionId, task: 1 },
      });
      expect(execFileSync("git", ["rev-parse", "HEAD"], { cwd: t.dir, encoding: "utf8" })).toBe(head);
      expect(existsSync(join(t.dir, "specs/1_parser_crash/.baton-postflight-pending"))).toBe(false);
      expect(runDoctorChecks(t.ctx).filter((f) => f.severity === "error")).toEqual([]);
      // The same operation runs again from the in-progress status and can now succeed.
      const retry = await research(t.config, [
        { write: "{task_folder}/reports/research-001.md", content: REPORT },
        metadata(),
      ]);
      expect(retry.result).toMatchObject({ ok: true, outcome: "done" });
    },
  );

  it("catches a TASK_ERROR printed long before the end of a large output", async () => {
    const t = await repoWithTask();
    const noise = Array.from({ length: 80 }, (_, i) => ({ output: `${i} ${"x".repeat(1000)}` }));
    const report = await research(t.config, [
      { output: "TASK_ERROR: the build is broken" },
      ...noise,
      { write: "{task_folder}/reports/research-001.md", content: REPORT },
      metadata(),
    ]);
    expect(report.result).toMatchObject({
      ok: false,
      code: "AGENT_REPORTED_ERROR",
      message: expect.stringContaining("the build is broken"),
    });
  });

  it("refuses an artifact that links out of the task folder", async () => {
    const t = await repoWithTask();
    // A task Baton ran before (its folder is its own): the link is in it, as an agent would leave one.
    await mutateStore(t.ctx, { command: "t" }, (tx) => {
      requireTask(tx, 1).session_id = "sess_1700000000_abcdef";
    });
    const { mkdirSync, symlinkSync, writeFileSync } = await import("node:fs");
    writeFileSync(join(t.dir, "secret.md"), REPORT);
    mkdirSync(join(t.dir, "specs/1_parser_crash/reports"), { recursive: true });
    symlinkSync(join(t.dir, "secret.md"), join(t.dir, "specs/1_parser_crash/reports/research-001.md"));
    const report = await research(t.config, [metadata()]);
    expect(report.result).toMatchObject({
      ok: false,
      code: "ARTIFACT_OUTSIDE_TASK",
      message: expect.stringContaining("is a link to"),
    });
  });

  it("kills an agent that hangs past its timeout, with its whole process group", async () => {
    const t = await repoWithTask();
    const report = await research(t.config, [{ hang: true }], 500);
    expect(report.result).toMatchObject({ ok: false, code: "RUNNER_TIMEOUT", checkpoint: "DELEGATE" });
    const agentPid = readFileSync(join(t.dir, report.journal), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line).detail?.agentPid)
      .find((pid) => typeof pid === "number");
    expect(agentPid).toEqual(expect.any(Number));
    expect(groupAlive(agentPid!)).toBe(false);
  });

  it("refuses at GATE IN without writing when the lifecycle table says no", async () => {
    const t = await repoWithTask();
    const before = readFileSync(t.ctx.paths.state, "utf8");
    const report = await runOperation({
      agentFiles: agentFileReaders(),
      config: t.config,
      operation: "implement",
      taskNumber: 1,
      runner: new ScriptedRunner({ script: { steps: [] } }),
    });
    expect(report.result).toMatchObject({
      ok: false,
      code: "GATE_IN_REFUSED",
      message: "task 1: cannot implement: the task has no plan; run `baton plan` first",
    });
    expect(readFileSync(t.ctx.paths.state, "utf8")).toBe(before);
  });

  it("ends a run whose runner throws as a failed DELEGATE: recorded, retryable, no run left open", async () => {
    const t = await repoWithTask();
    const throwing = new ScriptedRunner({ script: { steps: [] } });
    throwing.run = async () => {
      throw new IoError("cannot mkdir /somewhere/holdout: permission denied (EACCES)");
    };
    const report = await runOperation({
      agentFiles: agentFileReaders(),
      config: t.config,
      operation: "research",
      taskNumber: 1,
      runner: throwing,
    });
    expect(report.result).toMatchObject({ ok: false, checkpoint: "DELEGATE", code: "RUNNER_SPAWN_FAILED" });
    expect((report.result as { message: string }).message).toContain("cannot mkdir /somewhere/holdout");
    expect(report.status).toBe("researching");
    expect(loadErrors(t.ctx.paths).entries.at(-1)).toMatchObject({ type: "runner_spawn_failed" });
    expect(existsSync(join(t.dir, "specs/.baton/checkpoints/1.json"))).toBe(false);
    const retry = await research(t.config, [
      { write: "{task_folder}/reports/research-001.md", content: REPORT },
      metadata(),
    ]);
    expect(retry.result).toMatchObject({ ok: true, outcome: "done" });
  });
});
