import type { DelegationContext } from "../runners/index.js";

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
    `Language: ${task.language}`,
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
