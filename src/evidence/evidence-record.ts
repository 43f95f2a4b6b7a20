import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import type { RunUsage } from "../runners/index.js";
import { EVIDENCE_DIR } from "../shared/baton-paths.js";
import { gitBlobId } from "../shared/git.js";
import type { Transaction } from "../state/index.js";
import type { ChangeEvidence, CheckRun, VerifiedArtifact } from "./evidence-types.js";

/**
 * The evidence of one checkpoint, committed in the task folder by the same commit that records it, so
 * a fresh clone (CI) can check it against the tree of that commit: who ran what, from which base, what
 * it produced (with hashes), what git says changed, and which checks passed. `baton verify` reads it.
 */
export { EVIDENCE_DIR };

export const Evidence = z.object({
  version: z.literal(1),
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
    }),
  ),
  usage: z.optional(z.record(z.string(), z.number())),
  /** Where the agent ran: Baton's sandbox, none on purpose (`--sandbox off`), or a live session's host. */
  sandbox: z.optional(z.enum(["bubblewrap", "off", "session"])),
  recordedAt: z.string(),
});
export type Evidence = z.infer<typeof Evidence>;

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

export interface EvidenceInput {
  root: string;
  folder: string;
  session: string;
  task: number;
  operation: string;
  phase?: string;
  agent: string;
  base: string | null;
  from: string;
  to: string;
  outcome: string;
  artifacts: readonly VerifiedArtifact[];
  changes?: ChangeEvidence | undefined;
  checks?: readonly CheckRun[] | undefined;
  usage?: RunUsage | undefined;
  sandbox?: Evidence["sandbox"];
}

/** Writes the evidence file in the store write that records the result (so it is in the same commit). */
export function writeEvidence(tx: Transaction, input: EvidenceInput): string {
  const evidence: Evidence = {
    version: 1,
    session: input.session,
    task: input.task,
    operation: input.operation,
    ...(input.phase ? { phase: input.phase } : {}),
    agent: input.agent,
    base: input.base,
    status: { from: input.from, to: input.to },
    outcome: input.outcome,
    artifacts: input.artifacts.map((a) => hashArtifact(input.root, a)),
    ...(input.changes ? { changes: { files: input.changes.files, unlisted: input.changes.unlisted } } : {}),
    checks: (input.checks ?? []).map((c) => ({
      name: c.name,
      command: c.command,
      ok: c.ok,
      exitCode: c.exitCode,
      durationMs: c.durationMs,
    })),
    ...(input.usage ? { usage: input.usage as Record<string, number> } : {}),
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    recordedAt: tx.timestamp,
  };
  const path = evidencePath(input.folder, input.session, input.operation, input.phase);
  tx.writeFile(path, `${JSON.stringify(evidence, null, 2)}\n`);
  return path;
}
