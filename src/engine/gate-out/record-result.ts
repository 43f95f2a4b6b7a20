import { hostname } from "node:os";
import type { AcceptedOutcome } from "../../shared/run-words.js";
import {
  applyStatus,
  checkpointPath,
  linkArtifacts,
  OPERATION_RULES,
  type OpenCheckpoint,
  type Operation,
  ownProcessStarted,
  requireTask,
  type Transaction,
} from "../../state/index.js";
import type { VerifiedArtifact } from "./gate-types.js";
import type { ReturnMetadata } from "./return-metadata.js";

/** The write after an accepted result: done (or partial) status, links, completion data; checkpoint closed. */
export function recordResult(
  tx: Transaction,
  request: {
    taskNumber: number;
    operation: Operation;
    outcome: AcceptedOutcome;
    metadata: ReturnMetadata;
    artifacts: VerifiedArtifact[];
    /** A plan run knows the first incomplete phase itself (phase numbers may skip). */
    resumePhase?: number;
    /**
     * A commit follows: this open checkpoint (as the caller read it in this write) stays open, marked
     * recorded, until the commit closes it.
     */
    commitPending?: OpenCheckpoint | null;
  },
): void {
  const task = requireTask(tx, request.taskNumber);
  if (request.artifacts.length > 0) linkArtifacts(tx, task, request.artifacts);
  if (request.outcome === "done") {
    const completion = request.metadata.completion_data;
    if (request.operation === "implement" && completion?.completion_summary) {
      task["completion_summary"] = completion.completion_summary;
      if (completion.roadmap_items) task["roadmap_items"] = completion.roadmap_items;
      if (completion.claudemd_suggestions !== undefined)
        task["claudemd_suggestions"] = completion.claudemd_suggestions;
    }
    applyStatus(tx, task, OPERATION_RULES[request.operation].done);
  } else if (request.operation === "implement") {
    // A partial implementation is resumable from the first phase not completed.
    const progress = request.metadata.partial_progress;
    if (request.resumePhase !== undefined) task["resume_phase"] = request.resumePhase;
    else if (progress?.phases_completed !== undefined) task["resume_phase"] = progress.phases_completed + 1;
    applyStatus(tx, task, "partial");
  }
  // research, plan and revise keep their in-progress status when partial: the same operation resumes.
  const path = checkpointPath(tx.paths.internalDir, request.taskNumber);
  const open = request.commitPending;
  if (!open) {
    tx.deleteFile(path);
    return;
  }
  const started = ownProcessStarted();
  const recorded = {
    at: tx.timestamp,
    outcome: request.outcome,
    pid: process.pid,
    ...(started ? { pidStarted: started } : {}),
    hostname: hostname(),
  };
  tx.writeFile(path, JSON.stringify({ ...open, recorded }, null, 2));
}
