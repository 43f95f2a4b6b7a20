import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { SandboxMode } from "../../config/index.js";
import { writeEvidence } from "../../evidence/index.js";
import { doneMarker, type Plan, setPhaseMarker, tickPhaseCheckboxes } from "../../plan/index.js";
import { CONTROL_FILE_GLOBS, TEMP_FILE_GLOB } from "../../shared/baton-paths.js";
import { appendError, holdStore, type StoreContext, type Transaction } from "../../state/index.js";
import { commitTaskChanges, publishedKey } from "../commit/index.js";
import type { ChangeEvidence, CheckRun } from "../gate-out/index.js";
import { phaseSummaryPath } from "./phase-call.js";
import { phaseFailure } from "./phase-failure.js";
import { phaseWorkBlobs } from "./phase-work-blobs.js";
import {
  applyPhaseCommit,
  commitInWorktree,
  deletePhaseBranch,
  type PhaseWorktree,
  removePhaseWorktree,
} from "./phase-worktree.js";
import type { PhaseRecord, PhaseVerdict } from "./plan-run-types.js";

export interface RecordContext {
  ctx: StoreContext;
  root: string;
  plan: Plan;
  planPath: string;
  /** The task folder relative to the repository root. */
  taskFolder: string;
  taskNumber: number;
  sessionId: string;
  delegationPath: string[];
  commit: boolean;
}

/** What the barrier established about the phase's accepted call, for its evidence file. */
export interface PhaseEvidence {
  changes?: ChangeEvidence | undefined;
  checkRuns?: CheckRun[] | undefined;
  base: string | null;
  agent: string;
  /** Where the phase's agent ran. */
  sandbox?: SandboxMode | undefined;
}

export type { PhaseRecord } from "./plan-run-types.js";

export function markerFor(verdict: PhaseVerdict, plan: Plan): string {
  if (verdict.kind === "complete") return doneMarker(plan.style);
  return verdict.kind === "partial" ? "PARTIAL" : "BLOCKED";
}

/** Files of the agent's own list that a shared-tree phase commit may stage: inside the repo, not Baton's. */
function stageableFiles(root: string, ctx: StoreContext, files: readonly string[]): string[] {
  const baton = [ctx.paths.state, ctx.paths.todo, ctx.paths.internalDir].map((p) => relative(root, p));
  return files
    .map((f) => relative(root, join(root, f)))
    .filter((f) => !baton.some((b) => f === b || f.startsWith(`${b}/`)));
}

/**
 * The work a phase commit carries: the files its agent listed, or — when it listed none — every file the
 * barrier saw change since the phase began (as GATE OUT commits an operation's unlisted work), so verified
 * work is never left out of history.
 */
function phaseWork(details: PhaseDetails): readonly string[] {
  if (details.filesChanged.length > 0) return details.filesChanged;
  return details.evidence?.changes?.files ?? [];
}

interface PhaseDetails {
  filesChanged: readonly string[];
  worktree: PhaseWorktree | null;
  previousMarker: string | null;
  evidence?: PhaseEvidence | undefined;
  /** The work's blobs as recorded (phase-work-blobs.ts); set when the phase completed. */
  work?: Record<string, string | null>;
}

/** Where a verdict stands once a worktree's work is (or is not) back in the shared tree. */
interface Settled {
  final: PhaseVerdict;
  /** The work files the phase commit carries. */
  files: string[];
  /** The phase's branch, kept when its work could not come back. */
  keptBranch?: string | undefined;
  /** The branch of work applied to the shared tree: deleted once the phase commit holds it. */
  appliedBranch?: string | undefined;
}

/** A worktree phase's work committed on its branch, then applied to the shared tree in phase order. */
async function bringBack(
  rc: RecordContext,
  wt: PhaseWorktree,
  verdict: PhaseVerdict,
  subject: string,
  files: string[],
): Promise<Settled> {
  const exclude = [
    relative(rc.root, rc.ctx.paths.state),
    relative(rc.root, rc.ctx.paths.todo),
    relative(rc.root, rc.ctx.paths.internalDir),
    relative(rc.root, rc.planPath),
    ...CONTROL_FILE_GLOBS.map((name) => `${rc.taskFolder}/${name}`),
    `**/${TEMP_FILE_GLOB}`,
  ];
  const committed = await commitInWorktree(wt, {
    message: `${subject}${verdict.kind === "complete" ? "" : " (not complete)"}\n\nSession: ${rc.sessionId}\n`,
    exclude,
  });
  let settled: Settled = { final: verdict, files };
  if (!committed.ok) {
    const final: PhaseVerdict = {
      kind: "failed",
      code: "WORKTREE_COMMIT",
      message: committed.reason,
      iterations: 1,
    };
    settled = { final, files, keptBranch: wt.branch };
  } else if (verdict.kind === "complete" && committed.sha !== null) {
    const applied = await applyPhaseCommit({ root: rc.root, sha: committed.sha });
    settled = applied.ok
      ? { final: verdict, files: applied.files, appliedBranch: wt.branch }
      : {
          files,
          keptBranch: wt.branch,
          final: {
            kind: "failed",
            code: applied.reason === "conflict" ? "MERGE_CONFLICT" : "MERGE_REFUSED",
            message: `${applied.message} (files: ${applied.files.join(", ") || "none named"}); the phase's work is kept on branch ${wt.branch}`,
            iterations: verdict.iterations,
          },
        };
  } else if (committed.sha !== null) {
    settled = { final: verdict, files, keptBranch: wt.branch };
  }
  await removePhaseWorktree(rc.root, wt, { keepBranch: true });
  if (settled.keptBranch === undefined && settled.appliedBranch === undefined)
    await deletePhaseBranch(rc.root, wt.branch);
  return settled;
}

/** The plan's marker (and checkboxes), and the evidence or the error entry, in one store write. */
function writePhaseRecord(
  tx: Transaction,
  rc: RecordContext,
  phase: { id: string; name: string },
  settled: Settled,
  marker: string,
  details: PhaseDetails,
  before: string,
): string | null {
  const { final } = settled;
  let text = before;
  const marked = setPhaseMarker(text, phase.id, marker);
  if (marked.ok) text = marked.text;
  if (final.kind === "complete") text = tickPhaseCheckboxes(text, phase.id);
  tx.writeFile(rc.planPath, text);
  if (final.kind !== "complete") {
    appendError(tx, phaseFailure(rc, phase, final, settled.keptBranch));
    return null;
  }
  const folder = join(rc.root, rc.taskFolder);
  return writeEvidence(tx, {
    subject: {
      root: rc.root,
      folder,
      session: rc.sessionId,
      task: rc.taskNumber,
      operation: "implement",
      phase: phase.id,
      agent: details.evidence?.agent ?? "unknown",
      base: details.evidence?.base ?? null,
    },
    status: { from: details.previousMarker ?? "NOT STARTED", to: marker },
    result: {
      outcome: "done",
      artifacts: [
        {
          type: "summary",
          path: relative(rc.root, join(folder, phaseSummaryPath(phase.id))),
          bytes: 0,
        },
      ],
      changes: details.evidence?.changes,
      checkRuns: details.evidence?.checkRuns,
    },
    sandbox: details.evidence?.sandbox,
    ...(details.work ? { work: details.work } : {}),
  });
}

/** The phase commit: the plan, errors.json, the summary, the evidence and the phase's work files. */
async function commitPhase(
  rc: RecordContext,
  phase: { id: string },
  settled: Settled,
  evidencePath: string | null,
  subject: string,
): Promise<PhaseRecord["commit"]> {
  const summary = join(rc.root, rc.taskFolder, phaseSummaryPath(phase.id));
  const result = await commitTaskChanges({
    root: rc.root,
    baton: [
      ...[rc.planPath, rc.ctx.paths.errors, ...(evidencePath ? [evidencePath] : [])].map((path) => ({
        path,
      })),
      ...publishedKey(rc.root),
    ],
    evidence: evidencePath,
    work: {
      paths: [summary, ...settled.files.map((f) => join(rc.root, f))],
      taskFolder: null,
      record: [relative(rc.root, summary)],
    },
    subject,
    sessionId: rc.sessionId,
  });
  return result.ok ? (result.committed ? { sha: result.sha } : null) : { error: result.reason };
}

/**
 * Records one phase's verdict: its marker (and, when complete, its checkboxes) edited in place in the
 * plan, an errors.json entry when it did not complete, and for a complete phase one commit
 * `task N phase K: name`, written and committed under the store's lock so concurrent phases never
 * interleave. When git refuses the commit the marker goes back and the phase fails with COMMIT_FAILED.
 * In a worktree the phase's work is first brought back; if that fails the phase is not complete and its
 * branch keeps the work.
 */
export async function recordPhase(
  rc: RecordContext,
  id: string,
  verdict: PhaseVerdict,
  details: PhaseDetails,
): Promise<PhaseRecord> {
  const phase = rc.plan.phases.find((p) => p.id === id && !p.carried)!;
  const subject = `task ${rc.taskNumber} phase ${id}: ${phase.name}`;
  const files = stageableFiles(rc.root, rc.ctx, phaseWork(details));
  const settled = details.worktree
    ? await bringBack(rc, details.worktree, verdict, subject, files)
    : { final: verdict, files };
  // An interrupted phase (Ctrl-C) gets back the marker it had: nothing is known about its work.
  const interrupted = settled.final.kind === "failed" && settled.final.code === "RUNNER_ABORTED";
  let marker = interrupted ? (details.previousMarker ?? "NOT STARTED") : markerFor(settled.final, rc.plan);
  let commit: PhaseRecord["commit"] = null;
  // The marker and the phase's commit land in one locked step: a phase is [COMPLETED] only with its commit.
  const held = await holdStore(rc.ctx, `baton implement ${rc.taskNumber} (phase ${id})`);
  try {
    const before = readFileSync(rc.planPath, "utf8");
    let evidencePath: string | null = null;
    const work = settled.final.kind === "complete" ? await phaseWorkBlobs(rc.root, settled.files) : {};
    await held.mutate({}, (tx) => {
      evidencePath = writePhaseRecord(tx, rc, phase, settled, marker, { ...details, work }, before);
    });
    if (settled.final.kind === "complete" && rc.commit) {
      commit = await commitPhase(rc, phase, settled, evidencePath, subject);
      if (commit && "error" in commit) {
        // git refused: the plan goes back to what it said before, and the phase is not complete.
        const iterations = verdict.kind === "complete" ? verdict.iterations : 1;
        const failed: PhaseVerdict = {
          kind: "failed",
          code: "COMMIT_FAILED",
          message: commit.error,
          iterations,
        };
        settled.final = failed;
        marker = details.previousMarker ?? "NOT STARTED";
        const written = evidencePath;
        await held.mutate({}, (tx) => {
          tx.writeFile(rc.planPath, before);
          if (written) tx.deleteFile(written);
          appendError(tx, phaseFailure(rc, phase, failed, settled.keptBranch));
        });
      }
    }
  } finally {
    held.release();
  }
  if (settled.appliedBranch) {
    if (commit && "error" in commit) settled.keptBranch = settled.appliedBranch;
    else await deletePhaseBranch(rc.root, settled.appliedBranch);
  }
  const record: PhaseRecord = { verdict: settled.final, marker, commit };
  if (settled.keptBranch) record.keptBranch = settled.keptBranch;
  return record;
}
