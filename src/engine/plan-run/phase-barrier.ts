import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import type { ReturnMetadata } from "../gate-out/index.js";
import { type Gate, refuse } from "../gate-out/index.js";

/** SHA-256 of a file's bytes, or null when it does not exist. */
export function fileDigest(path: string): string | null {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return null;
  }
}

/** What remains, as the agent reported it: `work_remaining`, else the partial-progress details. */
export function reportedRemaining(meta: ReturnMetadata): string | null {
  const listed = meta.work_remaining;
  const text = Array.isArray(listed) ? listed.join("; ") : (listed ?? meta.partial_progress?.details ?? "");
  return text.trim() === "" ? null : text;
}

/**
 * A phase ends `implemented` or `partial`; a partial phase must say what remains, or the next
 * iteration would start blind. (What it lists in files_changed is checked against git by checkChanges.)
 */
export const checkPhaseStatus: Gate = (ctx) => {
  const meta = ctx.metadata!;
  if (meta.status !== "implemented" && meta.status !== "partial") {
    return refuse(
      ctx,
      "META_STATUS_NOT_ALLOWED",
      `status "${meta.status}" cannot end a phase; expected "implemented" or "partial"`,
    );
  }
  if (meta.status === "partial" && reportedRemaining(meta) === null) {
    return refuse(
      ctx,
      "WORK_REMAINING_MISSING",
      "the phase reported partial without saying what remains (work_remaining or partial_progress.details)",
    );
  }
  return { ok: true };
};

/**
 * The hard barrier's artifact check: the phase summary exists, is not a stub, and was written by
 * this call — a summary left by an earlier iteration or run must not pass (the original's lexicographic
 * "newest summary" let exactly that happen).
 */
export const checkPhaseSummary: Gate = (ctx) => {
  const phase = ctx.phase!;
  const shown = relative(ctx.repoRoot, phase.summaryPath);
  let bytes: number;
  try {
    const stat = statSync(phase.summaryPath);
    if (!stat.isFile()) return refuse(ctx, "SUMMARY_MISSING", `${shown} is not a file`);
    bytes = stat.size;
  } catch {
    return refuse(ctx, "SUMMARY_MISSING", `Phase ${phase.id} left no summary (${shown} does not exist)`);
  }
  if (bytes < phase.minSummaryBytes) {
    return refuse(
      ctx,
      "SUMMARY_TOO_SMALL",
      `${shown} has ${bytes} bytes, below the minimum of ${phase.minSummaryBytes} (a stub, not a summary)`,
    );
  }
  if (fileDigest(phase.summaryPath) === phase.summaryDigestBefore) {
    return refuse(
      ctx,
      "SUMMARY_UNCHANGED",
      `${shown} is the summary an earlier call left; this call did not write one`,
    );
  }
  return { ok: true };
};
