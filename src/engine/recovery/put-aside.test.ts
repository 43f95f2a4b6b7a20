import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointPath, type OpenCheckpoint } from "../../state/index.js";
import { tempStore } from "../../testing/store-fixture.js";
import type { JournalRecord } from "../run/session-journal.js";
import { readBaseline } from "../run/work-tree-baseline.js";
import { putAsideDeadOutput } from "./put-aside.js";

let cleanup = () => {};
const SCOPE = { folder: null, keep: [] };
/** A plan run's journal: a phase began in the shared tree. */
const PLAN_RUN: JournalRecord[] = [{ at: "x", step: "PHASE", phase: "begin", detail: { phase: "1" } }];
afterEach(() => cleanup());

/** A repository with one committed file, a dead headless run's checkpoint on it, and that file changed since. */
async function deadRunChanged() {
  const t = await tempStore({ active: 0 });
  cleanup = t.cleanup;
  const git = (...args: string[]) => execFileSync("git", args, { cwd: t.dir, encoding: "utf8" });
  writeFileSync(join(t.dir, "tracked.txt"), "committed\n");
  git("add", "tracked.txt");
  git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "file");
  const baseline = (await readBaseline(t.dir))!;
  const checkpoint: OpenCheckpoint = {
    sessionId: "sess_dead",
    taskNumber: 1,
    operation: "implement",
    previousStatus: "planned",
    pid: 999_999_999,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    mode: "headless",
    baseline,
  };
  writeFileSync(join(t.dir, "tracked.txt"), "the dead agent's\n");
  const tracked = () => readFileSync(join(t.dir, "tracked.txt"), "utf8");
  return { t, git, checkpoint, tracked };
}

describe("putting aside a dead run's unrecorded changes", () => {
  it("saves them on the session's branch and puts the file back; asked again, names the branch", async () => {
    const { t, git, checkpoint, tracked } = await deadRunChanged();
    const aside = await putAsideDeadOutput(t.ctx, checkpoint, PLAN_RUN, SCOPE);
    expect(aside).toEqual({ branch: "baton/leftovers/task-1", files: ["tracked.txt"], kept: [] });
    expect(tracked()).toBe("committed\n");
    expect(git("show", "baton/leftovers/task-1:tracked.txt")).toBe("the dead agent's\n");
    const first = git("rev-parse", "baton/leftovers/task-1");
    // A recover killed after the put-aside runs again: nothing left to move, the branch still named.
    expect(await putAsideDeadOutput(t.ctx, checkpoint, PLAN_RUN, SCOPE)).toEqual({
      branch: "baton/leftovers/task-1",
      files: [],
      kept: [],
    });
    // Another dead run of the task: one branch still, the earlier put-aside its second parent.
    writeFileSync(join(t.dir, "tracked.txt"), "the next dead agent's\n");
    const again = await putAsideDeadOutput(
      t.ctx,
      { ...checkpoint, sessionId: "sess_dead2" },
      PLAN_RUN,
      SCOPE,
    );
    expect(again.files).toEqual(["tracked.txt"]);
    expect(git("rev-parse", "baton/leftovers/task-1^2").trim()).toBe(first.trim());
    expect(git("show", "baton/leftovers/task-1:tracked.txt")).toBe("the next dead agent's\n");
    expect(git("branch", "--list", "baton/*").trim()).toBe("baton/leftovers/task-1");
  });

  it.each<[string, (c: OpenCheckpoint) => OpenCheckpoint, JournalRecord[]]>([
    ["a live session's tree (the person works there too)", (c) => ({ ...c, mode: "session" }), PLAN_RUN],
    ["an operation's run (its draft is kept for the re-run)", (c) => c, []],
    [
      "a run whose phases ran in worktrees (the shared tree is the person's)",
      (c) => c,
      [{ at: "x", step: "PHASE", phase: "begin", detail: { phase: "1", worktree: true } }],
    ],
  ])("touches nothing of %s", async (_name, shape, records) => {
    const { t, git, checkpoint, tracked } = await deadRunChanged();
    expect(await putAsideDeadOutput(t.ctx, shape(checkpoint), records, SCOPE)).toEqual({
      branch: null,
      files: [],
      kept: [],
    });
    expect(tracked()).toBe("the dead agent's\n");
    expect(git("branch", "--list", "baton/*")).toBe("");
  });

  it("touches nothing while another run is alive on the repository", async () => {
    const { t, checkpoint, tracked } = await deadRunChanged();
    const live = { ...checkpoint, sessionId: "sess_live", taskNumber: 2, pid: process.pid };
    mkdirSync(join(t.ctx.paths.internalDir, "checkpoints"), { recursive: true });
    writeFileSync(checkpointPath(t.ctx.paths.internalDir, 2), JSON.stringify(live));
    const aside = await putAsideDeadOutput(t.ctx, checkpoint, PLAN_RUN, SCOPE);
    expect(aside).toMatchObject({ files: [], skipped: expect.stringContaining("task 2's run") });
    expect(tracked()).toBe("the dead agent's\n");
  });

  it("takes the task folder's unrecorded files too, never the plan Baton restores or a control file", async () => {
    const { t, git, checkpoint } = await deadRunChanged();
    const folder = join(t.dir, "specs/1_task");
    mkdirSync(join(folder, "summaries"), { recursive: true });
    mkdirSync(join(folder, "plans"), { recursive: true });
    writeFileSync(join(folder, "summaries/phase-2-summary.md"), "half\n");
    writeFileSync(join(folder, "plans/implementation-001.md"), "# plan\n");
    writeFileSync(join(folder, ".return-meta.json"), "{}\n");
    const scope = { folder, keep: [join(folder, "plans/implementation-001.md")] };
    const aside = await putAsideDeadOutput(t.ctx, checkpoint, PLAN_RUN, scope);
    expect(aside.files).toEqual(["specs/1_task/summaries/phase-2-summary.md", "tracked.txt"]);
    expect(git("status", "--porcelain", "--untracked-files=all", "--", "specs/1_task")).toBe(
      "?? specs/1_task/.return-meta.json\n?? specs/1_task/plans/implementation-001.md\n",
    );
  });
});
