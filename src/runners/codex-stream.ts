import * as z from "zod/mini";
import { clipLabel as clip, EventText, readEvent } from "./agent-cli.js";
import type { AgentFailure, OutputInterpreter } from "./agent-process.js";
import type { RunnerEvent, RunUsage } from "./runner-types.js";

/**
 * Reads `codex exec --json` (opencode contract 11.3): `thread.started`, `turn.started`, `item.started` /
 * `item.completed` (command executions, agent messages, file changes, errors), `turn.completed` with usage,
 * `turn.failed`, and top-level `error` lines (connection trouble, which Codex retries forever: Baton's
 * timeout ends it). Unknown types are ignored; a line that is not JSON is output text.
 */
const str = z.catch(z.optional(z.string()), undefined);
const num = z.catch(z.optional(z.number()), undefined);
const Event = z.looseObject({ type: z.string(), thread_id: str, message: str });
const Item = z.looseObject({
  item: z.looseObject({
    type: str,
    text: str,
    command: str,
    message: str,
    exit_code: z.catch(z.optional(z.nullable(z.number())), undefined),
    changes: z.catch(z.optional(z.array(z.looseObject({ path: str, kind: str }))), undefined),
  }),
});
const Usage = z.looseObject({
  usage: z.catch(z.optional(z.looseObject({ input_tokens: num, output_tokens: num })), undefined),
});
const Failed = z.looseObject({ error: z.catch(z.optional(z.looseObject({ message: str })), undefined) });

export class CodexEventInterpreter implements OutputInterpreter {
  private readonly text = new EventText();
  private inputTokens = 0;
  private outputTokens = 0;
  private turns = 0;
  private failed: string | undefined;
  threadId: string | undefined;

  line(line: string, emit: (event: RunnerEvent) => void): void {
    const read = readEvent(line, Event, this.text, emit);
    if (!read) return;
    const { value, event } = read;
    const { type } = event;
    if (type === "thread.started") this.threadId = event.thread_id;
    else if (type === "item.completed") this.item(value, emit);
    else if (type === "turn.completed") {
      const usage = Usage.safeParse(value).data?.usage;
      this.turns++;
      this.inputTokens += usage?.input_tokens ?? 0;
      this.outputTokens += usage?.output_tokens ?? 0;
    } else if (type === "turn.failed") {
      this.failed = Failed.safeParse(value).data?.error?.message ?? "the turn failed";
      this.text.keep(`turn failed: ${this.failed}`, emit);
    } else if (type === "error" && event.message) {
      emit({ type: "step", label: clip(event.message) });
    }
  }

  private item(value: unknown, emit: (event: RunnerEvent) => void): void {
    const item = Item.safeParse(value).data?.item;
    if (!item) return;
    if (item.type === "agent_message" && item.text) {
      for (const l of item.text.split("\n")) this.text.keep(l, emit);
    } else if (item.type === "command_execution" && item.command) {
      const status = item.exit_code ? ` (exit ${item.exit_code})` : "";
      emit({ type: "step", label: clip(`shell: ${item.command}${status}`), tool: "shell" });
    } else if (item.type === "file_change") {
      const paths = (item.changes ?? []).map((c) => c.path).filter(Boolean);
      emit({ type: "step", label: clip(`edit: ${paths.join(", ")}`), tool: "apply_patch" });
    } else if (item.type === "error" && item.message) {
      emit({ type: "step", label: clip(`warning: ${item.message}`) });
    }
  }

  result(): { output: string; usage: RunUsage; failure?: AgentFailure } {
    const usage: RunUsage = {
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      turns: this.turns,
    };
    const out: { output: string; usage: RunUsage; failure?: AgentFailure } = {
      output: this.text.text(),
      usage,
    };
    if (this.failed) out.failure = { reason: "agent_error", message: this.failed };
    return out;
  }
}
