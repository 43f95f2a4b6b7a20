import * as z from "zod/mini";
import { type ApprovalVerdict, approvalStanding, approverName } from "../approvals/index.js";
import type { BatonConfig } from "../config/index.js";
import { recordApproval } from "../engine/index.js";
import type { BatonEvent } from "../shared/event-stream.js";
import { isBatonError } from "../shared/index.js";
import {
  OPERATIONS,
  readSettledStore,
  storeContext,
  taskFolderPath,
  taskView,
  todoIndex,
} from "../state/index.js";
import type { McpRun, McpRuns } from "./mcp-runs.js";

/** A tool's reply: its data as JSON text and as structured content, or Baton's code and message as an error. */
export type ToolReply = {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

export const reply = (data: Record<string, unknown>): ToolReply => ({
  content: [{ type: "text", text: JSON.stringify(data, null, 2) }],
  structuredContent: data,
});

export const refusal = (code: string, message: string): ToolReply => ({
  content: [{ type: "text", text: `[${code}] ${message}` }],
  structuredContent: { code, message },
  isError: true,
});

/** Any thrown Baton error as a refusal with its code; anything else as INTERNAL. */
export function asRefusal(error: unknown): ToolReply {
  if (isBatonError(error)) return refusal(error.code, error.message);
  return refusal("INTERNAL", error instanceof Error ? error.message : String(error));
}

export const TasksInput = { status: z.optional(z.array(z.string())), task: z.optional(z.number()) };

/** `tasks`: the active tasks (filtered by status), or one task whole with its artifacts and approval. */
export async function tasksTool(
  config: BatonConfig,
  input: { status?: string[] | undefined; task?: number | undefined },
): Promise<ToolReply> {
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const index = todoIndex(snapshot.todo);
  if (input.task !== undefined) {
    const entry = snapshot.state.tasks.find((t) => t.project_number === input.task);
    if (!entry) return refusal("TASK_NOT_FOUND", `task ${input.task} is not an active task`);
    const view = taskView(entry, index.get(input.task), true);
    const standing = approvalStanding(
      config,
      entry,
      taskFolderPath(ctx.paths.dir, entry, config.artifactNaming),
    );
    const approval =
      standing.kind === "not_required"
        ? null
        : {
            standing: standing.kind,
            ...("plan" in standing ? { plan: standing.plan.path, sha256: standing.plan.sha256 } : {}),
          };
    return reply({ task: view, approval });
  }
  const tasks = snapshot.state.tasks
    .filter((t) => !input.status || input.status.includes(t.status))
    .map((t) => {
      const view = taskView(t, index.get(t.project_number));
      return { number: view.number, title: view.title, status: view.status, language: view.language };
    });
  return reply({ tasks });
}

export const StartInput = {
  operation: z.enum(OPERATIONS),
  task: z.number(),
  focus: z.optional(z.string()),
};

export const RunInput = { run: z.string() };

/** What a run is doing now, from its task's events: the last phase, agent or gate it reached. */
function doing(events: readonly BatonEvent[]): string | null {
  const last = events.at(-1);
  if (!last) return null;
  return [
    last.kind,
    last.phase ? `phase ${last.phase}` : "",
    last.outcome ?? "",
    last.code ? `[${last.code}]` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** `status`: running or ended, what it does, what it spent, a plan waiting for a person, and its verdict. */
export async function statusTool(config: BatonConfig, runs: McpRuns, run: McpRun): Promise<ToolReply> {
  const events = runs.events(run);
  const costUsd = events.reduce((sum, e) => sum + (e.kind === "agent" ? (e.costUsd ?? 0) : 0), 0);
  const snapshot = await readSettledStore(storeContext(config));
  const entry = snapshot.state.tasks.find((t) => t.project_number === run.task);
  const standing = entry
    ? approvalStanding(
        config,
        entry,
        taskFolderPath(storeContext(config).paths.dir, entry, config.artifactNaming),
      )
    : null;
  const waiting =
    standing && (standing.kind === "pending" || standing.kind === "stale")
      ? { standing: standing.kind, plan: standing.plan.path, sha256: standing.plan.sha256 }
      : null;
  const result = run.report?.result;
  return reply({
    run: run.id,
    task: run.task,
    operation: run.operation,
    state: run.state,
    startedAt: run.startedAt,
    doing: doing(events),
    costUsd: Math.round(costUsd * 1e6) / 1e6,
    taskStatus: entry?.status ?? null,
    approvalPending: waiting,
    verdict:
      run.state === "running"
        ? null
        : result
          ? { ok: result.ok, code: result.code ?? null, message: result.message ?? null }
          : { ok: false, code: "RUN_FAILED", message: run.failure },
  });
}

export const AnswerInput = { task: z.number(), sha256: z.string(), reason: z.optional(z.string()) };

/** `approve` / `reject`: only on a server a person started with `--allow-approvals`; bound to the bytes read. */
export async function answerTool(
  config: BatonConfig,
  verdict: ApprovalVerdict,
  input: { task: number; sha256: string; reason?: string | undefined },
): Promise<ToolReply> {
  if (verdict === "rejected" && !input.reason?.trim())
    return refusal("INVALID_ARGUMENT", "a rejection needs a reason");
  const outcome = await recordApproval({
    config,
    taskNumber: input.task,
    verdict,
    reason: input.reason?.trim(),
    seenSha256: input.sha256,
  });
  if (!outcome.ok) return refusal(outcome.code, outcome.message);
  return reply({
    verdict,
    task: input.task,
    plan: outcome.approval.plan,
    by: approverName(outcome.approval.by),
    committed: outcome.committed,
  });
}
