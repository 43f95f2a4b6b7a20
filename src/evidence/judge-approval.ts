import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { approvalsAtCommit, planApprovalRequired } from "../config/index.js";
import { planContentHash } from "../plan/index.js";
import { ARTIFACT_DIRS } from "../shared/baton-paths.js";
import { runGit } from "../shared/git.js";
import { taskTypeOf } from "../state/index.js";
import { EVIDENCE_DIR, Evidence } from "./evidence-record.js";
import { signatureProblem } from "./judge-completion.js";
import { type KeyTrust, keyTrust } from "./key-trust.js";
import { signingKey } from "./signing.js";

/** An approval given by the identity that made the plan: not a failure, but a person reviewing their own work. */
export interface SelfApproval {
  task: number;
  commit: string;
  plan: string;
  who: string;
}

async function shown(root: string, commit: string, path: string): Promise<string | null> {
  const result = await runGit(root, ["show", `${commit}:${path}`]);
  return result.ok ? result.stdout : null;
}

/** Whether the configuration at `commit` asked for the task's plan to be approved before `implement`. */
async function approvalRequiredAt(
  root: string,
  prefix: string,
  commit: string,
  task: number,
): Promise<boolean | string> {
  const approvals = await approvalsAtCommit(root, commit);
  if (approvals === null)
    return "the configuration at its commit does not read, so whether it asked for approval is unknown";
  if (Object.keys(approvals.implement).length === 0) return false;
  const state = await shown(root, commit, `${prefix}/state.json`);
  let type: string | undefined;
  try {
    const entries = (JSON.parse(state ?? "{}") as { active_projects?: unknown[] }).active_projects ?? [];
    const entry = entries.find((e) => (e as { project_number?: unknown }).project_number === task);
    type = entry ? taskTypeOf(entry as never) : undefined;
  } catch {
    type = undefined;
  }
  return planApprovalRequired({ approvals }, type ?? "general");
}

/**
 * An `implement` completion where the configuration of its commit asked for approval: its evidence names the
 * approval it ran under, and that approval is a person's yes to the very plan content the commit holds —
 * recorded by its own signed `approve` evidence, committed before or with the completion. A plan edited after
 * approval, an approval written into state.json by hand, or none at all is a reason; an approval by the
 * identity that added the plan is returned apart.
 */
export async function judgeApproval(
  root: string,
  prefix: string,
  completion: { commit: string; task: number },
  evidence: Evidence,
  trust: KeyTrust,
): Promise<{ reasons: string[]; self: SelfApproval | null }> {
  if (evidence.operation !== "implement" || evidence.phase !== undefined) return { reasons: [], self: null };
  const required = await approvalRequiredAt(root, prefix, completion.commit, completion.task);
  if (typeof required === "string") return { reasons: [required], self: null };
  if (!required) return { reasons: [], self: null };
  const approved = evidence.approvedPlan;
  if (!approved)
    return {
      reasons: [
        "it ran without an approved plan, and the configuration at its commit asked for one (approvals.implement)",
      ],
      self: null,
    };
  const reasons: string[] = [];
  const plan = await shown(root, completion.commit, approved.plan);
  if (plan === null || planContentHash(plan) !== approved.contentSha256)
    reasons.push(`the plan it ran (${approved.plan}) is not the content that was approved`);
  const folder = approved.plan.slice(0, approved.plan.lastIndexOf(`/${ARTIFACT_DIRS.plan}/`));
  const path = `${folder}/${EVIDENCE_DIR}/${approved.session}-approve.json`;
  const text = await shown(root, completion.commit, path);
  const approval = text === null ? null : Evidence.safeParse(safeJson(text));
  if (!approval?.success || approval.data.approval?.verdict !== "approved") {
    reasons.push(`the approval it names (session ${approved.session}) has no approve evidence at ${path}`);
    return { reasons, self: null };
  }
  const signature = signatureProblem(approval.data, trust);
  if (signature) reasons.push(`its approval: ${signature.replace(/^its /, "")}`);
  if (approval.data.approval.contentSha256 !== approved.contentSha256)
    reasons.push("its approval is of other plan content than the evidence says it ran");
  const author = await runGit(root, [
    "log",
    "--diff-filter=A",
    "--format=%an <%ae>",
    completion.commit,
    "--",
    approved.plan,
  ]);
  const maker = author.ok ? author.stdout.trim().split("\n").at(-1) : undefined;
  const by = approval.data.approval.by.git;
  const self =
    maker && by && maker === by
      ? { task: completion.task, commit: completion.commit, plan: approved.plan, who: by }
      : null;
  return { reasons, self };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Before `implement` runs on an approval: the approval's signed evidence is in the task folder and says yes
 * to this content, signed by a key the history trusts or by this account's own. An approval written into
 * state.json by hand (or by an agent) has none; one signed by a key an agent made is not trusted. Null: good.
 */
export async function approvalEvidenceProblem(
  root: string,
  folder: string,
  approval: { session: string; content_sha256: string },
): Promise<string | null> {
  const path = `${folder}/${EVIDENCE_DIR}/${approval.session}-approve.json`;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return `the approval recorded in state.json has no evidence (${relative(root, path)}): it was not made by \`baton approve\``;
  }
  const parsed = Evidence.safeParse(safeJson(text));
  if (!parsed.success || parsed.data.approval?.verdict !== "approved")
    return `${relative(root, path)} is not the evidence of an approval`;
  if (parsed.data.approval.contentSha256 !== approval.content_sha256)
    return `${relative(root, path)} approves other plan content than state.json records`;
  const own = signingKey();
  const trust = await keyTrust(root);
  trust.keys.set(own.fingerprint, own.publicPem);
  trust.trusted.add(own.fingerprint);
  const problem = signatureProblem(parsed.data, trust);
  return problem ? `the approval's evidence: ${problem.replace(/^its evidence /, "")}` : null;
}
