import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkpointPath,
  loadErrors,
  mutateStore,
  readOpenCheckpoint,
  readStore,
  resealFile,
} from "../../state/index.js";
import { tempStore } from "../../testing/store-fixture.js";
import { recordFailure } from "../drive/record-failure.js";
import { recordResult } from "../gate-out/record-result.js";
import { gateIn } from "./open-run.js";

let cleanup = () => {};
afterEach(() => cleanup());

const SESSION = "sess_1773703759_f69482";

async function store() {
  const t = await tempStore({ active: 3 });
  cleanup = t.cleanup;
  // Generated statuses cycle: task 3 not_started, task 2 researching, task 1 researched.
  return t;
}

const meta = (status: string) => ({
  status,
  summary: "s",
  artifacts: [],
  metadata: { session_id: SESSION, agent_type: "a" },
});

describe("GATE IN in the store", () => {
  it("writes the in-progress status, the session id and the open checkpoint together", async () => {
    const t = await store();
    const verdict = await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: SESSION, force: false }),
    );
    expect(verdict).toMatchObject({
      ok: true,
      checkpoint: { previousStatus: "not_started", pid: process.pid },
    });
    const task = readStore(t.ctx).state.tasks.find((x) => x.project_number === 3)!;
    expect(task).toMatchObject({ status: "researching", session_id: SESSION });
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toMatch(/### 3\.[^#]*\[RESEARCHING\]/);
    expect(readOpenCheckpoint(t.ctx.paths.internalDir, 3)).toMatchObject({
      sessionId: SESSION,
      operation: "research",
    });
  });

  it("refuses a second run while the first one's process lives, naming its session", async () => {
    const t = await store();
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: SESSION, force: false }),
    );
    const second = await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: "sess_1773703760_aaaaaa", force: true }),
    );
    expect(second).toEqual({
      ok: false,
      reason: expect.stringContaining(`open checkpoint: session ${SESSION}`),
    });
    expect(second.ok === false && second.reason).toContain("is still running");
  });

  it("lets --force take over only a checkpoint whose process is gone, keeping the original previous status", async () => {
    const t = await store();
    const dead = Number(
      spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
        .stdout,
    );
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: SESSION, force: false }),
    );
    const path = checkpointPath(t.ctx.paths.internalDir, 3);
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), pid: dead }));
    // As if Baton had written it so: a hand edit of a checkpoint would be undone from the seal.
    resealFile(t.ctx.paths, path);
    const refused = await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: "sess_1773703760_bbbbbb", force: false }),
    );
    expect(refused).toEqual({
      ok: false,
      reason: expect.stringContaining("whose process is gone; run `baton recover` or pass --force"),
    });
    const forced = await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: "sess_1773703760_bbbbbb", force: true }),
    );
    expect(forced).toMatchObject({ ok: true, checkpoint: { previousStatus: "not_started" } });
  });

  it("applies the lifecycle table", async () => {
    const t = await store();
    const verdict = await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "implement", sessionId: SESSION, force: false }),
    );
    expect(verdict).toEqual({
      ok: false,
      reason: "task 3: cannot implement: the task has no plan; run `baton plan` first",
    });
  });
});

describe("recording the outcome", () => {
  it("links artifacts, writes the done status and closes the checkpoint in one write", async () => {
    const t = await store();
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: SESSION, force: false }),
    );
    mkdirSync(join(t.dir, "specs/3_x/reports"), { recursive: true });
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      recordResult(tx, {
        taskNumber: 3,
        operation: "research",
        outcome: "done",
        metadata: meta("researched"),
        artifacts: [
          { type: "research", path: "specs/3_x/reports/research-001.md", summary: "found", bytes: 900 },
        ],
      }),
    );
    const task = readStore(t.ctx).state.tasks.find((x) => x.project_number === 3)!;
    expect(task).toMatchObject({
      status: "researched",
      researched: expect.any(String),
      artifacts: [{ path: "specs/3_x/reports/research-001.md" }],
    });
    expect(existsSync(checkpointPath(t.ctx.paths.internalDir, 3))).toBe(false);
  });

  it("records a failure in errors.json and keeps the task retryable", async () => {
    const t = await store();
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: SESSION, force: false }),
    );
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      recordFailure(tx, {
        taskNumber: 3,
        operation: "research",
        sessionId: SESSION,
        checkpoint: "GATE_OUT",
        code: "META_MISSING",
        message: "no metadata",
        delegationPath: ["baton", "research", "baton-researcher"],
      }),
    );
    expect(readStore(t.ctx).state.tasks.find((x) => x.project_number === 3)!.status).toBe("researching");
    expect(loadErrors(t.ctx.paths).entries.at(-1)).toMatchObject({
      type: "meta_missing",
      context: { session_id: SESSION, task: 3, checkpoint: "GATE_OUT" },
      trajectory: { delegation_path: ["baton", "research", "baton-researcher"] },
    });
    expect(existsSync(checkpointPath(t.ctx.paths.internalDir, 3))).toBe(false);
    // Retry from the in-progress status is allowed by the lifecycle table.
    const retry = await mutateStore(t.ctx, { command: "t" }, (tx) =>
      gateIn(tx, { taskNumber: 3, operation: "research", sessionId: "sess_1773703761_cccccc", force: false }),
    );
    expect(retry.ok).toBe(true);
  });
});
