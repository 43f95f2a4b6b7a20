import { userInfo } from "node:os";
import { join } from "node:path";
import { APPROVAL_KEY, type CurrentPlan, currentPlan, type PlanApproval } from "../../approvals/index.js";
import type { BatonConfig } from "../../config/index.js";
import { writeEvidence } from "../../evidence/index.js";
import { TaskNotFoundError } from "../../shared/errors.js";
import { runGit } from "../../shared/git.js";
import { newSessionId } from "../../shared/time.js";
import {
  holdStore,
  readStore,
  requireTask,
  type StoreContext,
  storeContext,
  type Transaction,
  taskFolderPath,
} from "../../state/index.js";
import { commitTaskChanges, storeFiles } from "../commit/index.js";

export interface ApprovalRequest {
  config: BatonConfig;
  taskNumber: number;
  verdict: PlanApproval["verdict"];
  reason?: string | undefined;
  /** The SHA-256 of the plan's bytes the person read (the dashboard, an MCP client): refused if it changed since. */
  seenSha256?: string | undefined;
}

export type ApprovalOutcome =
  | { ok: true; approval: PlanApproval; committed: boolean; commitError?: string }
  | { ok: false; code: "NO_PLAN" | "PLAN_CHANGED"; message: string };

/** Who answers: the git identity (`Name <email>`, null when git has none) and the OS user. */
async function whoAnswers(root: string): Promise<PlanApproval["by"]> {
  const ident = await runGit(root, ["var", "GIT_COMMITTER_IDENT"]);
  const git = ident.ok ? (/^(.*>)\s+\d+\s+[+-]\d{4}$/.exec(ident.stdout.trim())?.[1] ?? null) : null;
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env["USER"] ?? `uid ${process.getuid?.() ?? "unknown"}`;
  }
  return { git, user };
}

type Answerable = { folder: string; plan: CurrentPlan; sha256: string };

/** The task's plan as the person answers for it, read under the lock; why it cannot be answered for. */
function answerable(
  ctx: StoreContext,
  request: ApprovalRequest,
): Answerable | Extract<ApprovalOutcome, { ok: false }> {
  const { config, taskNumber } = request;
  const task = readStore(ctx).state.tasks.find((t) => t.project_number === taskNumber);
  if (!task) throw new TaskNotFoundError(taskNumber, `${ctx.paths.state} (active tasks)`);
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  const plan = currentPlan(config, task, folder);
  if (plan === null) {
    const message = `task ${taskNumber} has no plan to answer for: \`baton plan ${taskNumber}\` makes one`;
    return { ok: false, code: "NO_PLAN", message };
  }
  const { sha256 } = plan;
  if (request.seenSha256 !== undefined && request.seenSha256 !== sha256) {
    const message = `task ${taskNumber}'s plan ${plan.path} changed since it was read (sha256 ${request.seenSha256.slice(0, 12)}…, now ${sha256.slice(0, 12)}…): read it again before you answer`;
    return { ok: false, code: "PLAN_CHANGED", message };
  }
  return { folder, plan, sha256 };
}

/** The approval in the task's entry and its signed evidence, in one store write; the evidence's path. */
function writeApproval(
  tx: Transaction,
  request: ApprovalRequest,
  found: Answerable,
  approval: PlanApproval,
  base: string | null,
): string {
  const entry = requireTask(tx, request.taskNumber);
  (entry as Record<string, unknown>)[APPROVAL_KEY] = approval;
  const { verdict, by, plan } = approval;
  return writeEvidence(tx, {
    subject: {
      root: request.config.root,
      folder: found.folder,
      session: approval.session,
      task: request.taskNumber,
      operation: verdict === "approved" ? "approve" : "reject",
      agent: "person",
      base,
    },
    status: { from: entry.status, to: entry.status },
    result: {
      outcome: verdict,
      artifacts: [{ type: "plan", path: plan, bytes: Buffer.byteLength(found.plan.text) }],
    },
    approval: {
      verdict,
      plan,
      contentSha256: approval.content_sha256,
      by,
      ...(approval.reason ? { reason: approval.reason } : {}),
    },
  });
}

/**
 * `baton approve N` / `baton reject N --reason …`: a person's word on the task's current plan, bound to what
 * they approved — the plan's exact bytes (kept as a git object and committed with the record) and its
 * content hash — recorded under the store's lock in the task's entry and in signed evidence, and committed
 * (`task N: approve plan`). The plan is read once, under the lock: what is hashed is what is recorded.
 */
export async function recordApproval(request: ApprovalRequest): Promise<ApprovalOutcome> {
  const { config, taskNumber, verdict } = request;
  const ctx = storeContext(config);
  const by = await whoAnswers(config.root);
  const head = await runGit(config.root, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  const held = await holdStore(ctx, `baton ${verdict === "approved" ? "approve" : "reject"} ${taskNumber}`);
  let evidence: string;
  let approval: PlanApproval;
  try {
    const found = answerable(ctx, request);
    if ("ok" in found) return found;
    const blob = await runGit(config.root, ["hash-object", "-w", "--stdin"], { stdin: found.plan.text });
    const session = newSessionId();
    evidence = await held.mutate({}, (tx) => {
      approval = {
        verdict,
        plan: found.plan.path,
        sha256: found.sha256,
        content_sha256: found.plan.contentSha256,
        blob: blob.ok ? blob.stdout.trim() : "",
        by,
        at: tx.timestamp,
        ...(request.reason ? { reason: request.reason } : {}),
        session,
      };
      return writeApproval(tx, request, found, approval, head.ok ? head.stdout.trim() : null);
    });
  } finally {
    held.release();
  }
  return commitApproval(request, approval!, evidence);
}

async function commitApproval(
  request: ApprovalRequest,
  approval: PlanApproval,
  evidence: string,
): Promise<ApprovalOutcome> {
  const { config, taskNumber } = request;
  if (!config.commit) return { ok: true, approval, committed: false };
  const committed = await commitTaskChanges({
    root: config.root,
    baton: [
      ...(await storeFiles(storeContext(config), taskNumber, evidence)),
      { path: join(config.root, approval.plan) },
    ],
    evidence,
    work: { paths: [], taskFolder: null, record: [] },
    subject: `task ${taskNumber}: ${approval.verdict === "approved" ? "approve" : "reject"} plan`,
    sessionId: approval.session,
  });
  if (!committed.ok) return { ok: true, approval, committed: false, commitError: committed.reason };
  return { ok: true, approval, committed: committed.committed };
}
