import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentTemplates } from "../../agents/index.js";
import type { BatonConfig } from "../../config/index.js";
import {
  type GitBaseline,
  type Operation,
  readOpenCheckpoint,
  specsPaths,
  storePrefix,
  type TaskEntry,
  taskTypeOf,
} from "../../state/index.js";
import type { Run } from "../run/index.js";
import { type GateOutVerdict, runGateOut } from "./gate-out-list.js";
import type { GateOutInput, ResultExpectations } from "./gate-types.js";
import { checksFor } from "./project-checks.js";

/** A result to check, as a live run and the recovery of a dead one both know it. */
export interface ResultToCheck {
  config: BatonConfig;
  operation: Operation;
  sessionId: string;
  /** The task as the store holds it; null when it is gone (its checks and earlier artifacts are then none). */
  task: TaskEntry | null;
  folder: string;
  metadataPath: string;
  agentOutput: string;
  /** The work tree at GATE IN, from the open checkpoint. */
  baseline: GitBaseline | null;
  provenance?: ResultExpectations["provenance"] | undefined;
  templates?: ResultExpectations["templates"] | undefined;
  gitReadOnly?: boolean | undefined;
}

/** GATE OUT's input for a result: everything it checks comes from Baton's own records, never from the agent. */
export function gateOutInput(result: ResultToCheck): GateOutInput {
  const { config, task, operation } = result;
  return {
    operation,
    sessionId: result.sessionId,
    repoRoot: config.root,
    taskFolder: result.folder,
    metadataPath: result.metadataPath,
    agentOutput: result.agentOutput,
    baseline: result.baseline,
    storePrefix: storePrefix(config.root, specsPaths(config.specsDir).dir),
    expected: {
      minArtifactBytes: config.minArtifactBytes,
      checks:
        operation === "implement" && task
          ? checksFor(config, taskTypeOf(task) ?? config.defaultLanguage, "operation")
          : [],
      ...(operation === "implement" && task ? { plannedChanges: latestPlanText(config.root, task) } : {}),
      researchSections: config.research.sections,
      earlierArtifacts: task ? artifactPaths(task) : [],
      ...(result.provenance ? { provenance: result.provenance } : {}),
      ...(result.templates ? { templates: result.templates } : {}),
      ...(result.gitReadOnly ? { gitReadOnly: true } : {}),
    },
  };
}

/** GATE OUT's checks of what the run's agent left in its task folder (and, in session, who wrote it). */
export function checkRunResult(
  run: Run,
  agentOutput: string,
  provenance?: ResultExpectations["provenance"],
  gitReadOnly = false,
): Promise<GateOutVerdict> {
  return runGateOut(
    gateOutInput({
      config: run.config,
      operation: run.operation,
      sessionId: run.sessionId,
      task: run.task,
      folder: run.folder,
      metadataPath: run.metadataPath,
      agentOutput,
      // GATE IN kept the work tree's baseline in the checkpoint, which is open until the result is recorded.
      baseline: readOpenCheckpoint(run.ctx.paths.internalDir, run.taskNumber)?.baseline ?? null,
      provenance,
      templates: agentTemplates(run.route.agent),
      gitReadOnly,
    }),
  );
}

/** The text of the task's latest plan, which may name check inputs the work is meant to change. */
function latestPlanText(root: string, task: TaskEntry): string {
  const plan = artifactPaths(task)
    .filter((p) => /(^|\/)plans\/[^/]+\.md$/.test(p))
    .at(-1);
  try {
    return plan ? readFileSync(join(root, plan), "utf8") : "";
  } catch {
    return "";
  }
}

/** The task's recorded artifacts as repository-relative paths (the original format also keeps bare strings). */
export function artifactPaths(task: TaskEntry): string[] {
  return (task.artifacts ?? []).map((a) => (typeof a === "string" ? a : a.path));
}
