import { relative } from "node:path";
import type { BatonConfig } from "../config/index.js";
import type { DelegationContext } from "../runners/index.js";
import { AGENT_RETURN } from "../shared/operation-names.js";
import type { Operation } from "../state/index.js";
import { nextArtifactPath, type PlannedArtifact, type TaskEntry, taskTypeOf } from "../state/index.js";
import type { Route } from "./routing.js";

function latestPath(task: TaskEntry, type: string): string | undefined {
  const records = (task.artifacts ?? []).map((a) => (typeof a === "string" ? { path: a, type: "" } : a));
  return records.filter((a) => (a.type ?? "") === type || (type === "research" && a.type === "report")).at(-1)
    ?.path;
}

/** Where this operation's artifact goes: the next report, plan version or summary of the task. */
export function plannedArtifact(
  config: BatonConfig,
  specsDir: string,
  task: TaskEntry,
  operation: Operation,
): PlannedArtifact {
  return nextArtifactPath(config.root, specsDir, task, AGENT_RETURN[operation].artifact, {
    naming: config.artifactNaming,
    shortName: operation === "implement" ? "summary" : operation,
  });
}

/** The delegation context of format reference 10, from the task, its route and this run's paths. */
export function delegationContext(input: {
  config: BatonConfig;
  operation: Operation;
  sessionId: string;
  delegationPath: string[];
  task: TaskEntry;
  route: Route;
  folder: string;
  metadataPath: string;
  focus?: string | null | undefined;
}): DelegationContext {
  const { config, operation, task } = input;
  const context: DelegationContext = {
    session_id: input.sessionId,
    delegation_depth: input.delegationPath.length - 2,
    delegation_path: input.delegationPath,
    operation,
    timeout: Math.round(config.timeoutsMs[operation] / 1000),
    task_context: {
      task_number: task.project_number,
      task_name: task.project_name,
      description: task.description ?? "",
      language: input.route.language,
    },
    task_folder: relative(config.root, input.folder),
    metadata_file_path: relative(config.root, input.metadataPath),
  };
  if (input.focus) context.focus_prompt = input.focus;
  const plan = latestPath(task, "plan");
  const research = latestPath(task, "research");
  if (plan) context.plan_path = plan;
  if (research) context.research_path = research;
  return context;
}

/**
 * The prompt an agent receives: the whole delegation context in words and as JSON. It states the
 * exact paths to write, because an agent that guesses a path produces an artifact GATE OUT rejects.
 */
export function buildPrompt(context: DelegationContext, title: string, artifactPath: string): string {
  const task = context.task_context;
  const lines = [
    `Baton delegates ${context.operation} of task ${task.task_number} to you.`,
    "",
    `Task ${task.task_number}: ${title}`,
    `Language: ${taskTypeOf(task) ?? "general"}`,
    `Description: ${task.description || "(none)"}`,
  ];
  if (context.focus_prompt) lines.push(`Focus: ${context.focus_prompt}`);
  if (context.plan_path) lines.push(`Plan: ${context.plan_path}`);
  if (context.research_path) lines.push(`Research: ${context.research_path}`);
  lines.push(
    "",
    `Session id: ${context.session_id}`,
    `Task folder: ${context.task_folder}`,
    `Write the ${context.operation === "implement" ? "summary" : context.operation === "research" ? "report" : "plan"} to: ${artifactPath}`,
    `Write the return metadata, last, to: ${context.metadata_file_path}`,
    "",
    "Delegation context (JSON):",
    JSON.stringify(context, null, 2),
  );
  return lines.join("\n");
}
