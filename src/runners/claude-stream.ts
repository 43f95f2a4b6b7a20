import { isAbsolute, relative } from "node:path";
import * as z from "zod/mini";
import { TailBuffer } from "../shared/lines.js";
import type { AgentFailure, OutputInterpreter } from "./agent-process.js";
import type { RunnerEvent, RunUsage } from "./runner-types.js";

/**
 * Reads Claude Code's `--output-format stream-json --verbose` (contract 10): one JSON object a line.
 * Tolerant on purpose: the binary adds message types and fields between versions, so only the fields
 * used are read, a field of an unexpected type is dropped instead of failing its message, unknown
 * messages are ignored, and a line that is not JSON is kept as output text.
 */

// A field of the wrong type becomes undefined rather than failing the whole message.
const num = z.catch(z.optional(z.number()), undefined);
const str = z.catch(z.optional(z.string()), undefined);

const Envelope = z.looseObject({ type: z.string(), subtype: str });

const Block = z.looseObject({
  type: z.string(),
  text: str,
  id: str,
  name: str,
  input: z.optional(z.unknown()),
});
const Assistant = z.looseObject({
  message: z.looseObject({ content: z.array(Block) }),
  parent_tool_use_id: z.catch(z.optional(z.nullable(z.string())), undefined),
});

const Task = z.looseObject({
  tool_use_id: str,
  description: str,
  subagent_type: str,
  last_tool_name: str,
});
const PermissionDenied = z.looseObject({ tool_name: str, message: str });
const ApiRetry = z.looseObject({ attempt: num, max_retries: num, error_status: num, error: str });

const Tokens = z.looseObject({
  input_tokens: num,
  output_tokens: num,
  cache_creation_input_tokens: num,
  cache_read_input_tokens: num,
});
const ModelTokens = z.looseObject({
  inputTokens: num,
  outputTokens: num,
  cacheReadInputTokens: num,
  cacheCreationInputTokens: num,
});
const Result = z.looseObject({
  subtype: str,
  is_error: z.catch(z.optional(z.boolean()), undefined),
  result: str,
  errors: z.catch(z.optional(z.array(z.string())), undefined),
  terminal_reason: str,
  api_error_status: num,
  num_turns: num,
  duration_ms: num,
  total_cost_usd: num,
  usage: z.catch(z.optional(Tokens), undefined),
  modelUsage: z.catch(z.optional(z.record(z.string(), ModelTokens)), undefined),
});
export type ClaudeResult = z.infer<typeof Result>;

const OUTPUT_TAIL_BYTES = 64 * 1024;
const LABEL_MAX = 120;

type Emit = (event: RunnerEvent) => void;

export class ClaudeStreamInterpreter implements OutputInterpreter {
  private readonly text = new TailBuffer(OUTPUT_TAIL_BYTES);
  private final: ClaudeResult | undefined;
  /** Agent tool_use id → sub-agent type, so a sub-agent's tool calls name the agent making them. */
  private readonly agents = new Map<string, string>();

  /** `cwd` shortens file paths in step labels to repository-relative ones. */
  constructor(private readonly cwd: string) {}

  line(line: string, emit: Emit): void {
    if (line.trim() === "") return;
    const message = parseObject(line);
    const envelope = message ? Envelope.safeParse(message) : undefined;
    if (!envelope?.success) {
      this.keep(line, emit);
      return;
    }
    const { type, subtype } = envelope.data;
    switch (type === "system" ? `system/${subtype}` : type) {
      case "assistant":
        this.assistant(message, emit);
        break;
      case "result": {
        const result = Result.safeParse(message);
        if (result.success) this.final = result.data;
        break;
      }
      case "system/task_started":
        this.taskStarted(message, emit);
        break;
      case "system/task_progress":
        this.taskProgress(message, emit);
        break;
      case "system/permission_denied": {
        const denied = PermissionDenied.safeParse(message);
        if (!denied.success) break;
        const { tool_name: tool = "a tool", message: why = "" } = denied.data;
        this.keep(`Permission denied: ${tool}${why ? `: ${why}` : ""}`, emit);
        break;
      }
      case "system/api_retry": {
        const retry = ApiRetry.safeParse(message);
        if (!retry.success) break;
        const { attempt = "?", max_retries: max = "?", error_status: status, error = "error" } = retry.data;
        emit({ type: "step", label: `API retry ${attempt}/${max} (${status ?? error})` });
        break;
      }
      // Anything else (init, user tool results, hook and task bookkeeping, stream events) says nothing new.
    }
  }

  result(): { output: string; usage?: RunUsage; failure?: AgentFailure } {
    const output = this.text.text().replace(/\n$/, "");
    if (this.final === undefined) return { output };
    const usage = resultUsage(this.final);
    const failure = resultFailure(this.final);
    return { output, ...(usage ? { usage } : {}), ...(failure ? { failure } : {}) };
  }

  /** The final `result` message, when one arrived (a killed run has none). */
  get resultMessage(): ClaudeResult | undefined {
    return this.final;
  }

  private keep(line: string, emit: Emit): void {
    this.text.push(Buffer.from(`${line}\n`));
    emit({ type: "output", stream: "stdout", line });
  }

  private assistant(message: unknown, emit: Emit): void {
    const parsed = Assistant.safeParse(message);
    if (!parsed.success) return;
    const parent = parsed.data.parent_tool_use_id ?? null;
    const agent = parent === null ? undefined : (this.agents.get(parent) ?? "sub-agent");
    for (const block of parsed.data.message.content) {
      // A sub-agent's text is its own business until it reports back; only the main thread's text is the
      // run's output (where GATE OUT looks for TASK_ERROR lines).
      if (block.type === "text" && block.text !== undefined && parent === null) {
        for (const line of block.text.split("\n")) this.keep(line, emit);
      } else if (block.type === "tool_use" && block.name !== undefined) {
        const input = isRecord(block.input) ? block.input : {};
        if ((block.name === "Agent" || block.name === "Task") && block.id !== undefined) {
          const type = input["subagent_type"];
          if (typeof type === "string") this.agents.set(block.id, type);
        }
        emit({
          type: "step",
          label: toolLabel(block.name, input, this.cwd),
          tool: block.name,
          ...(agent ? { agent } : {}),
        });
      }
    }
  }

  private taskStarted(message: unknown, emit: Emit): void {
    const task = Task.safeParse(message);
    if (!task.success) return;
    const { tool_use_id: id, subagent_type: agent = "sub-agent", description } = task.data;
    if (id !== undefined) this.agents.set(id, agent);
    emit({ type: "step", label: clip(`${agent} started: ${description ?? ""}`), tool: "Agent", agent });
  }

  private taskProgress(message: unknown, emit: Emit): void {
    const task = Task.safeParse(message);
    if (!task.success) return;
    const { tool_use_id: id, description, last_tool_name: tool } = task.data;
    const agent =
      task.data.subagent_type ?? (id !== undefined ? this.agents.get(id) : undefined) ?? "sub-agent";
    emit({
      type: "step",
      label: clip(`${agent}: ${description ?? tool ?? "working"}`),
      agent,
      ...(tool ? { tool } : {}),
    });
  }
}

function parseObject(line: string): Record<string, unknown> | null {
  if (!line.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  return line.length > LABEL_MAX ? `${line.slice(0, LABEL_MAX - 1)}…` : line;
}

/** "Write specs/1_demo/reports/research-001.md", "Bash: npm test", "Agent researcher: Research task 1". */
export function toolLabel(name: string, input: Record<string, unknown>, cwd: string): string {
  const field = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  const path = field("file_path") ?? field("notebook_path") ?? field("path");
  if (["Write", "Edit", "MultiEdit", "Read", "NotebookEdit"].includes(name) && path !== undefined) {
    return clip(`${name} ${shortPath(path, cwd)}`);
  }
  if (name === "Agent" || name === "Task") {
    return clip(`${name} ${field("subagent_type") ?? "general-purpose"}: ${field("description") ?? ""}`);
  }
  const detail = field("command") ?? field("pattern") ?? field("url") ?? field("query") ?? field("skill");
  return clip(detail === undefined ? name : `${name}: ${detail}`);
}

function shortPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const inside = relative(cwd, path);
  return inside === "" || inside.startsWith("..") || isAbsolute(inside) ? path : inside;
}

const count = (...values: Array<number | undefined>) => values.reduce<number>((sum, v) => sum + (v ?? 0), 0);

/**
 * Tokens as billed: input includes cache writes and reads. `modelUsage` is preferred because it covers
 * every model call of the run (sub-agents included), the same calls `total_cost_usd` prices; `usage`
 * counts the main loop only and is the fallback.
 */
export function resultUsage(result: ClaudeResult): RunUsage | undefined {
  const usage: RunUsage = {};
  const models = Object.values(result.modelUsage ?? {});
  if (models.length > 0) {
    usage.inputTokens = count(
      ...models.flatMap((m) => [m.inputTokens, m.cacheCreationInputTokens, m.cacheReadInputTokens]),
    );
    usage.outputTokens = count(...models.map((m) => m.outputTokens));
  } else if (result.usage) {
    const u = result.usage;
    usage.inputTokens = count(u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens);
    usage.outputTokens = count(u.output_tokens);
  }
  const valid = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n) && n >= 0;
  if (valid(result.total_cost_usd)) usage.costUsd = result.total_cost_usd;
  if (valid(result.num_turns) && Number.isInteger(result.num_turns)) usage.turns = result.num_turns;
  if (valid(result.duration_ms)) usage.durationMs = result.duration_ms;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** A result that says the run failed, even with exit code 0: an API error, the turn limit, a budget. */
export function resultFailure(result: ClaudeResult): AgentFailure | undefined {
  const failed = result.is_error === true || (result.subtype !== undefined && result.subtype !== "success");
  if (!failed) return undefined;
  const subtype = result.subtype === "success" ? undefined : result.subtype;
  const status = result.api_error_status ? `HTTP ${result.api_error_status}` : undefined;
  const why = [result.terminal_reason ?? subtype, status].filter(Boolean).join(", ");
  const text = result.result?.trim() || result.errors?.join("; ") || "no message";
  return {
    reason: "agent_error",
    message: `Claude Code reported an error${why ? ` (${why})` : ""}: ${text}`,
  };
}
