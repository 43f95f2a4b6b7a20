import { loadConfig } from "../../config/index.js";
import { UsageError } from "../../shared/index.js";
import {
  adoptable,
  type Finding,
  findForeignChanges,
  fixFindings,
  mutateStore,
  requireStore,
  runDoctorChecks,
  runningSession,
  sessionActive,
  storeContext,
} from "../../state/index.js";
import { type LearnedConventions, learnedConventions } from "./conventions.js";

export interface DoctorResult {
  /** What Baton learned from the repository: the task-type field, v1/v2 names, opencode's folders. */
  conventions: LearnedConventions;
  findings: Finding[];
  fixed: Finding[];
  /** Findings still present after `--fix` (or all of them without it). */
  remaining: Finding[];
  healthy: boolean;
}

export async function doctor(options: { repo: string; fix?: boolean | undefined }): Promise<DoctorResult> {
  const ctx = storeContext(await loadConfig(options.repo));
  requireStore(ctx);
  const conventions = await learnedConventions(ctx.config, ctx);
  const findings = runDoctorChecks(ctx);
  if (!options.fix) {
    return {
      conventions,
      findings,
      fixed: [],
      remaining: findings,
      healthy: !findings.some((f) => f.severity === "error"),
    };
  }
  const report = await fixFindings(ctx, findings);
  const remaining = runDoctorChecks(ctx);
  return {
    conventions,
    findings,
    fixed: report.fixed,
    remaining,
    healthy: !remaining.some((f) => f.severity === "error"),
  };
}

export interface AdoptResult {
  adopted: string[];
}

/**
 * `baton adopt`: a person keeps the edits they made to the task store outside Baton; Baton seals the
 * files as they are. Refused inside a Claude Code session, where such a change is undone instead.
 */
export async function adopt(options: { repo: string; insideSession: boolean }): Promise<AdoptResult> {
  const ctx = storeContext(await loadConfig(options.repo));
  requireStore(ctx);
  // The repository's word (an open in-session checkpoint) counts, not only the caller's environment.
  if (options.insideSession || sessionActive(ctx.paths) || runningSession(ctx.paths.internalDir)) {
    throw new UsageError("baton adopt is for a person outside a Claude Code session", {
      hint: "Inside a session Baton restores changes it did not make; change tasks through Baton's commands.",
    });
  }
  const changes = findForeignChanges(ctx.paths);
  if (changes.length > 0) await mutateStore(ctx, { command: "baton adopt", adopt: true }, () => {});
  // A changed checkpoint is restored by that write, never adopted.
  return {
    adopted: changes
      .filter(adoptable)
      .map((c) => `specs/${c.file}${c.kind === "deleted" ? " (deleted)" : ""}`),
  };
}
