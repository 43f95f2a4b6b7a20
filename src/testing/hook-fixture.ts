import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StopHookInput, ToolHookInput } from "../hooks/index.js";
import {
  BATON_DIR,
  batonPaths,
  MARKER_FILE,
  METADATA_FILE,
  storeInternalPaths,
} from "../shared/baton-paths.js";
import { generateRepo } from "./generate-repo.js";

/**
 * A git repository with a valid specs/ store, for hook tests. `delegate` opens what `baton gate-in`
 * leaves behind in session mode: the checkpoint, the task folder and its postflight marker.
 */
export interface HookRepo {
  dir: string;
  project: { root: string; specsDir: string };
  /** Active task numbers, highest first. */
  tasks: number[];
  delegate(options: DelegateOptions): Delegation;
  cleanup(): void;
}

export interface DelegateOptions {
  task: number;
  batonSession?: string;
  /** Claude Code's session id recorded by gate-in; omitted = not yet known. */
  claudeSessionId?: string;
  operation?: string;
  agent?: string;
  /** Write the marker's `claude_session_id` too (gate-in does when it knows the session). */
  markerBound?: boolean;
}

export interface Delegation {
  batonSession: string;
  folder: string;
  checkpointPath: string;
  markerPath: string;
  metadataPath: string;
}

/** An in-session delegation of one task, as gate-in leaves it: its checkpoint and its postflight marker. */
function delegateInSession(
  specsDir: string,
  nameOf: (n: number) => string,
  options: Parameters<HookRepo["delegate"]>[0],
): ReturnType<HookRepo["delegate"]> {
  const session = options.batonSession ?? `sess_1700000000_${options.task}`;
  const operation = options.operation ?? "research";
  const folder = join(specsDir, `${options.task}_${nameOf(options.task)}`);
  mkdirSync(folder, { recursive: true });
  mkdirSync(storeInternalPaths(join(specsDir, BATON_DIR)).checkpoints, { recursive: true });
  const checkpointPath = storeInternalPaths(join(specsDir, BATON_DIR)).checkpoint(options.task);
  writeFileSync(
    checkpointPath,
    JSON.stringify(
      {
        sessionId: session,
        taskNumber: options.task,
        operation,
        previousStatus: "not_started",
        pid: 999_999,
        hostname: "test-host",
        startedAt: "2026-01-01T00:00:00Z",
        mode: "session",
        agent: options.agent ?? "researcher",
        ...(options.claudeSessionId ? { claudeSessionId: options.claudeSessionId } : {}),
      },
      null,
      2,
    ),
  );
  const markerPath = join(folder, MARKER_FILE);
  writeFileSync(
    markerPath,
    JSON.stringify({
      session_id: session,
      skill: options.agent ?? "researcher",
      task_number: options.task,
      operation,
      reason: "Postflight pending: status update, artifact linking, git commit",
      created: "2026-01-01T00:00:00Z",
      stop_hook_active: false,
      ...(options.markerBound && options.claudeSessionId
        ? { claude_session_id: options.claudeSessionId }
        : {}),
    }),
  );
  return {
    folder,
    checkpointPath,
    markerPath,
    metadataPath: join(folder, METADATA_FILE),
    batonSession: session,
  };
}

export function hookRepo(): HookRepo {
  const dir = mkdtempSync(join(tmpdir(), "baton-hooks-"));
  execFileSync("git", ["init", "-q"], { cwd: dir });
  const generated = generateRepo({ dir, active: 3 });
  const specsDir = join(dir, "specs");
  const state = JSON.parse(readFileSync(join(specsDir, "state.json"), "utf8")) as {
    active_projects: Array<{ project_number: number; project_name: string }>;
  };
  const nameOf = (n: number) =>
    state.active_projects.find((t) => t.project_number === n)?.project_name ?? "task";
  return {
    dir,
    project: { root: dir, specsDir },
    tasks: generated.activeNumbers,
    delegate: (options) => delegateInSession(specsDir, nameOf, options),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A PreToolUse/PostToolUse input as Claude Code sends it (contract 4.3). */
export function toolInput(
  dir: string,
  tool: string,
  toolInput: Record<string, unknown>,
  extra: Partial<ToolHookInput> = {},
): ToolHookInput {
  return {
    session_id: "claude-main",
    transcript_path: "/dev/null",
    cwd: dir,
    permission_mode: "bypassPermissions",
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: toolInput,
    tool_use_id: "toolu_1",
    ...extra,
  };
}

export function stopInput(dir: string, extra: Partial<StopHookInput> = {}): StopHookInput {
  return {
    session_id: "claude-main",
    transcript_path: "/dev/null",
    cwd: dir,
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: "done",
    background_tasks: [],
    ...extra,
  };
}

/** The lines of the project's hook log. */
export function hookLog(dir: string): Array<Record<string, unknown>> {
  try {
    return readFileSync(batonPaths(dir).hookLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
}

/** What PreToolUse answered: its decision and the reason the model reads. */
export type PreToolUseReply = { hookSpecificOutput?: Record<string, unknown> };
export const decisionOf = (reply: PreToolUseReply) =>
  reply.hookSpecificOutput?.["permissionDecision"] ?? "none";
export const reasonOf = (reply: PreToolUseReply) =>
  String(reply.hookSpecificOutput?.["permissionDecisionReason"] ?? "");

/** Asks Baton's PreToolUse about one tool call in the repository, as Claude Code's command hook would. */
export async function askPreToolUse(
  dir: string,
  tool: string,
  input: Record<string, unknown>,
  extra: Partial<ToolHookInput> = {},
): Promise<PreToolUseReply> {
  const { handleHook } = await import("../hooks/index.js");
  const body = JSON.stringify(toolInput(dir, tool, input, extra));
  return (await handleHook("pre-tool-use", body, { projectDir: dir, fallbackDir: dir })) as PreToolUseReply;
}
