import { resolve } from "node:path";
import type { PrivateFiles } from "./private-file.js";
import type { RunRequest } from "./runner-types.js";

/**
 * Placeholders a command template or a script may use; each is replaced by plain text, never shell-parsed.
 * The phase ones (`phase_id`, `phase_name`, `summary_file`: the phase's summary_path) are empty outside a
 * phase run; `iteration` is the context's, else "1".
 */
export const PLACEHOLDERS = [
  "prompt",
  "session_id",
  "operation",
  "task_number",
  "task_name",
  "language",
  "task_folder",
  "metadata_file",
  "phase_id",
  "phase_name",
  "iteration",
  "summary_file",
  "artifact_path",
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

const PLACEHOLDER_PATTERN = /\{([a-z_]+)\}/g;

export function placeholderValues(request: RunRequest): Record<Placeholder, string> {
  const { context } = request;
  return {
    prompt: request.prompt,
    session_id: context.session_id,
    operation: context.operation,
    task_number: String(context.task_context.task_number),
    task_name: context.task_context.task_name,
    language: context.task_context.language,
    task_folder: context.task_folder,
    metadata_file: context.metadata_file_path,
    phase_id: context.phase?.id ?? "",
    phase_name: context.phase?.name ?? "",
    iteration: String(context.iteration ?? 1),
    summary_file: context.phase?.summary_path ?? "",
    artifact_path: context.artifact_path ?? context.phase?.summary_path ?? "",
  };
}

/** Replaces known placeholders; anything else in braces (code, JSON, Markdown) is left as written. */
export function substitute(text: string, values: Record<Placeholder, string>): string {
  return text.replace(PLACEHOLDER_PATTERN, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name as Placeholder] : whole,
  );
}

/** Placeholder names used in `text` that are not known, for template validation. */
export function unknownPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER_PATTERN)]
    .map((match) => match[1]!)
    .filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
}

/** The longest JSON value put in the environment itself (one variable over 128 KiB fails the spawn: E2BIG). */
export const INLINE_ENV_BYTES = 100 * 1024;

/**
 * The agent's environment: Baton's own, minus any BATON_* inherited from an enclosing run (an agent that
 * runs Baton must not leak its delegation into the next one), plus this delegation. The context and the
 * agent are always in files (BATON_CONTEXT_FILE, BATON_AGENT_FILE), and also inline when short enough: a
 * task's description or an agent file has no length limit.
 */
export function delegationEnv(
  request: RunRequest,
  base: NodeJS.ProcessEnv,
  files: PrivateFiles,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith("BATON_")) env[key] = value;
  const { context } = request;
  Object.assign(env, {
    BATON_SESSION_ID: context.session_id,
    BATON_OPERATION: context.operation,
    BATON_TASK_NUMBER: String(context.task_context.task_number),
    BATON_TASK_NAME: context.task_context.task_name,
    BATON_TASK_LANGUAGE: context.task_context.language,
    BATON_TASK_FOLDER: context.task_folder,
    BATON_METADATA_FILE: context.metadata_file_path,
    BATON_ARTIFACT_PATH: context.artifact_path ?? context.phase?.summary_path ?? "",
    BATON_DELEGATION_DEPTH: String(context.delegation_depth),
    BATON_DELEGATION_PATH: JSON.stringify(context.delegation_path),
    BATON_REPO_ROOT: resolve(request.cwd),
  });
  putJson(env, "BATON_CONTEXT", context, files);
  if (context.focus_prompt !== undefined) env.BATON_FOCUS = context.focus_prompt;
  if (context.phase !== undefined) {
    env.BATON_PHASE_ID = context.phase.id;
    env.BATON_PHASE_NAME = context.phase.name;
    env.BATON_SUMMARY_FILE = context.phase.summary_path;
  }
  if (context.iteration !== undefined) env.BATON_ITERATION = String(context.iteration);
  if (request.agent !== undefined) putJson(env, "BATON_AGENT", request.agent, files);
  return env;
}

/** `name` inline when short enough, and `name_FILE` always. */
function putJson(env: NodeJS.ProcessEnv, name: string, value: unknown, files: PrivateFiles): void {
  const json = JSON.stringify(value);
  env[`${name}_FILE`] = files.write(`${name.toLowerCase()}.json`, json);
  if (Buffer.byteLength(json) <= INLINE_ENV_BYTES) env[name] = json;
}
