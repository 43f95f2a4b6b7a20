import type { RunnerEvent, RunOptions, RunRequest } from "../runners/index.js";
import { METADATA_FILE } from "../shared/baton-paths.js";

/** A realistic delegation (format reference 10) for runner tests and the demo. */
export function sampleRunRequest(cwd: string, overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    cwd,
    prompt:
      "Research task 12: add a widget.\nMind the 'quotes', \"double quotes\", $(subshells) and `backticks`.",
    context: {
      session_id: "sess_1773703759_f69482",
      delegation_depth: 1,
      delegation_path: ["orchestrator", "research", "general-research-agent"],
      operation: "research",
      timeout: 3600,
      task_context: {
        task_number: 12,
        task_name: "add_widget",
        description: "Add a widget",
        language: "general",
      },
      focus_prompt: "edge cases first",
      task_folder: "specs/12_add_widget",
      metadata_file_path: `specs/12_add_widget/${METADATA_FILE}`,
      artifact_path: "specs/12_add_widget/reports/research-001.md",
    },
    ...overrides,
  };
}

/** Run options whose events are collected; `timeoutMs` defaults to 20 s. */
export function recordingOptions(overrides: Partial<Omit<RunOptions, "onEvent">> = {}): RunOptions & {
  events: RunnerEvent[];
} {
  const events: RunnerEvent[] = [];
  return {
    signal: new AbortController().signal,
    timeoutMs: 20_000,
    ...overrides,
    events,
    onEvent: (event) => events.push(event),
  };
}
