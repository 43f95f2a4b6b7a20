import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { APPROVAL_VERDICTS, approvedPlanOf } from "../approvals/index.js";
import type { RunUsage } from "../runners/index.js";
import { EVIDENCE_DIR, publicKeyFile } from "../shared/baton-paths.js";
import { gitBlobId } from "../shared/git.js";
import { present } from "../shared/present.js";
import type { Transaction } from "../state/index.js";
import { CHECK_TREES, type ChangeEvidence, type CheckRun, type VerifiedArtifact } from "./evidence-types.js";
import { canonicalJson, signBytes, signingKey } from "./signing.js";

/**
 * The evidence of one checkpoint, committed in the task folder by the same commit that records it, so
 * a fresh clone (CI) can check it against the tree of that commit: who ran what, from which base, what
 * it produced (with hashes), what git says changed, and which checks passed. `baton verify` reads it.
 */
export { EVIDENCE_DIR };

export const Evidence = z.object({
  /** 1: unsigned, from Baton before signing; 2: signed. */
  version: z.union([z.literal(1), z.literal(2)]),
  session: z.string(),
  task: z.number(),
  operation: z.string(),
  /** Set for one phase of a plan run; its commit is `task N phase K: …`. */
  phase: z.optional(z.string()),
  agent: z.string(),
  base: z.nullable(z.string()),
  status: z.object({ from: z.string(), to: z.string() }),
  outcome: z.string(),
  /** `blob`: git's object id of the artifact, which `baton verify` compares with the commit's tree. */
  artifacts: z.array(z.object({ path: z.string(), sha256: z.string(), blob: z.string(), bytes: z.number() })),
  changes: z.optional(z.object({ files: z.array(z.string()), unlisted: z.array(z.string()) })),
  checks: z.array(
    z.object({
      name: z.string(),
      command: z.string(),
      ok: z.boolean(),
      exitCode: z.nullable(z.number()),
      durationMs: z.number(),
      tree: z.optional(z.enum(CHECK_TREES)),
      linked: z.optional(z.array(z.string())),
      unseen: z.optional(z.array(z.string())),
      counts: z.optional(
        z.object({
          tests: z.number(),
          passed: z.number(),
          failed: z.number(),
          skipped: z.number(),
          todo: z.number(),
        }),
      ),
    }),
  ),
  usage: z.optional(z.record(z.string(), z.number())),
  /** Where the agent ran: Baton's sandbox, none on purpose (`--sandbox off`), or a live session's host. */
  sandbox: z.optional(z.enum(["bubblewrap", "off", "session"])),
  /**
   * Why a process the model or the repository controls could read the signing key while this result was
   * made (a live session of a host without a sandbox here): a signature then proves less, and `baton verify`
   * lists the result apart. Absent when none could.
   */
  keyReachable: z.optional(z.string()),
  /**
   * The work the commit carries besides Baton's files: each path the accepted result changed from HEAD,
   * with git's object id of its bytes (null: deleted). `baton verify` holds the commit to exactly this.
   */
  work: z.optional(z.record(z.string(), z.nullable(z.string()))),
  /**
   * Paths whose committed bytes are not the ones GATE OUT hashed: git's filters (line endings, clean filters)
   * or the repository's own commit hooks changed them as they were committed. `artifacts` and `work` hold
   * what git stored.
   */
  restated: z.optional(z.array(z.string())),
  /** `approve`/`reject`: a person's word on the task's plan (its content hash: plan/plan-content.ts), and who. */
  approval: z.optional(
    z.object({
      verdict: z.enum(APPROVAL_VERDICTS),
      plan: z.string(),
      contentSha256: z.string(),
      by: z.object({ git: z.nullable(z.string()), user: z.string() }),
      reason: z.optional(z.string()),
    }),
  ),
  /** `implement` where the configuration asked for approval: the plan content it ran, and the approval's session. */
  approvedPlan: z.optional(z.object({ plan: z.string(), contentSha256: z.string(), session: z.string() })),
  recordedAt: z.string(),
  /** Ed25519 over the canonical JSON of every other field, by the key `.baton/keys/<key>.pub` holds. */
  signature: z.optional(z.object({ key: z.string(), value: z.string() })),
});
export type Evidence = z.infer<typeof Evidence>;

/** The bytes an evidence record's signature covers: every field but the signature, canonically. */
export function signedBytes(evidence: Evidence): string {
  const { signature: _signature, ...body } = evidence;
  return canonicalJson(body);
}

/** `specs/N_slug/evidence/<session>-<operation>[-phase-<id>].json` */
export function evidencePath(folder: string, sessionId: string, operation: string, phase?: string): string {
  return join(folder, EVIDENCE_DIR, `${sessionId}-${operation}${phase ? `-phase-${phase}` : ""}.json`);
}

export function sha256Of(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function hashArtifact(root: string, artifact: VerifiedArtifact): Evidence["artifacts"][number] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, artifact.path));
  } catch {
    bytes = Buffer.alloc(0);
  }
  return { path: artifact.path, sha256: sha256Of(bytes), blob: gitBlobId(bytes), bytes: bytes.length };
}

/** The run an evidence file speaks for: who did what, on which task, from which commit. */
export interface EvidenceSubject {
  root: string;
  folder: string;
  session: string;
  task: number;
  operation: string;
  phase?: string;
  agent: string;
  base: string | null;
}

/** What GATE OUT established of the result: an accepted verdict's own fields. */
export interface EvidenceResult {
  outcome: string;
  artifacts: readonly VerifiedArtifact[];
  changes?: ChangeEvidence | undefined;
  checkRuns?: readonly CheckRun[] | undefined;
}

/** An evidence file's content before it is signed: the run it speaks for, the status it moved, the result. */
export interface EvidenceInput {
  subject: EvidenceSubject;
  status: { from: string; to: string };
  result: EvidenceResult;
  usage?: RunUsage | undefined;
  sandbox?: Evidence["sandbox"];
  keyReachable?: string | undefined;
  work?: Evidence["work"];
  approval?: Evidence["approval"];
  approvedPlan?: Evidence["approvedPlan"];
}

/** Where this account's public key is committed in a repository: a Baton file of every commit with evidence. */
export function publishedKeyPath(root: string): string {
  return join(root, publicKeyFile(signingKey().fingerprint));
}

/** An implement result's approval in force (approvals/approval-record.ts), read in the same store write. */
function approvedPlanEvidence(tx: Transaction, input: EvidenceInput): Pick<Evidence, "approvedPlan"> {
  if (input.approvedPlan) return { approvedPlan: input.approvedPlan };
  if (input.subject.operation !== "implement") return {};
  const approvedPlan = approvedPlanOf(input.subject.root, tx.findTask(input.subject.task));
  return approvedPlan ? { approvedPlan } : {};
}

/** Writes the evidence file in the store write that records the result (so it is in the same commit). */
export function writeEvidence(tx: Transaction, input: EvidenceInput): string {
  const key = signingKey();
  const { subject, result } = input;
  const evidence: Evidence = {
    version: 2,
    session: subject.session,
    task: subject.task,
    operation: subject.operation,
    ...(subject.phase ? { phase: subject.phase } : {}),
    agent: subject.agent,
    base: subject.base,
    status: { from: input.status.from, to: input.status.to },
    outcome: result.outcome,
    artifacts: result.artifacts.map((a) => hashArtifact(subject.root, a)),
    ...(result.changes
      ? { changes: { files: result.changes.files, unlisted: result.changes.unlisted } }
      : {}),
    checks: (result.checkRuns ?? []).map((c) => ({
      name: c.name,
      command: c.command,
      ok: c.ok,
      exitCode: c.exitCode,
      durationMs: c.durationMs,
      ...(c.tree ? { tree: c.tree } : {}),
      ...(c.linked && c.linked.length > 0 ? { linked: c.linked } : {}),
      ...(c.unseen && c.unseen.length > 0 ? { unseen: [...c.unseen] } : {}),
      ...(c.counts ? { counts: c.counts } : {}),
    })),
    ...(input.usage ? { usage: input.usage as Record<string, number> } : {}),
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    ...(input.keyReachable ? { keyReachable: input.keyReachable } : {}),
    ...(input.work ? { work: input.work } : {}),
    ...(input.approval ? { approval: input.approval } : {}),
    ...approvedPlanEvidence(tx, input),
    recordedAt: tx.timestamp,
  };
  evidence.signature = signBytes(signedBytes(evidence), key);
  const path = evidencePath(subject.folder, subject.session, subject.operation, subject.phase);
  tx.writeFile(path, `${JSON.stringify(evidence, null, 2)}\n`);
  // The public half goes into the repository with the first evidence it signs (adoption, or a new machine).
  const published = publishedKeyPath(subject.root);
  if (!present(published)) tx.writeFile(published, key.publicPem);
  return path;
}

/**
 * A file as git stored it in a commit: its object id, its size and its content as text (what `baton verify`
 * reads back); null when the commit does not hold it.
 */
export type StoredFile = { blob: string; bytes: number; text: string } | null;

/**
 * The evidence re-stated for what git stored: each artifact and work file whose committed object differs
 * from the one recorded takes the committed one (a file the commit gained is listed as work), the paths are
 * named in `restated`, and the record is signed again. Null when git stored exactly what was recorded.
 */
export function restateEvidence(
  evidence: Evidence,
  stored: ReadonlyMap<string, StoredFile>,
): Evidence | null {
  const restated = new Set(evidence.restated ?? []);
  const artifacts = evidence.artifacts.map((a) => {
    const file = stored.get(a.path);
    if (file === undefined || file === null || file.blob === a.blob) return a;
    restated.add(a.path);
    return { path: a.path, sha256: sha256Of(file.text), blob: file.blob, bytes: file.bytes };
  });
  const work = evidence.work === undefined ? undefined : { ...evidence.work };
  if (work) {
    for (const [path, file] of stored) {
      const blob = file?.blob ?? null;
      const listed = Object.hasOwn(work, path);
      if (listed && work[path] === blob) continue;
      // An artifact the work does not list is re-stated as an artifact (above), not added as work.
      if (!listed && evidence.artifacts.some((a) => a.path === path)) continue;
      work[path] = blob;
      restated.add(path);
    }
  }
  if (restated.size === (evidence.restated ?? []).length) return null;
  const next: Evidence = {
    ...evidence,
    artifacts,
    ...(work ? { work } : {}),
    restated: [...restated].sort(),
  };
  delete next.signature;
  if (evidence.signature) next.signature = signBytes(signedBytes(next), signingKey());
  return next;
}
