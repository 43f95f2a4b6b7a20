import * as z from "zod/mini";
import { clipLabel as clip, EventText, readEvent } from "./agent-cli.js";
import type { AgentFailure, OutputInterpreter } from "./agent-process.js";
import type { RunnerEvent, RunUsage } from "./runner-types.js";

/**
 * Reads `opencode run --format json` (contract 2.2): one `{type, sessionID, part|error}` object a line,
 * for the root session only. `text` parts are the agent's words, `tool_use` parts finished tool calls,
 * `step_finish` parts carry tokens and cost per step (summed here), `error` a session error (exit 1).
 * Tolerant like the Claude reader: unknown types are ignored, a line that is not JSON is output text.
 */
const str = z.catch(z.optional(z.string()), undefined);
const num = z.catch(z.optional(z.number()), undefined);

const Event = z.looseObject({ type: z.string(), sessionID: str });
const TextPart = z.looseObject({ part: z.looseObject({ text: str }) });
const ToolPart = z.looseObject({
  part: z.looseObject({
    tool: str,
    state: z.catch(
      z.optional(z.looseObject({ status: str, input: z.optional(z.unknown()), error: str, title: str })),
      undefined,
    ),
  }),
});
const StepFinish = z.looseObject({
  part: z.looseObject({
    cost: num,
    tokens: z.catch(z.optional(z.looseObject({ input: num, output: num })), undefined),
  }),
});
const ErrorEvent = z.looseObject({
  error: z.catch(
    z.optional(z.looseObject({ name: str, data: z.optional(z.looseObject({ message: str })) })),
    undefined,
  ),
});

export class OpencodeEventInterpreter implements OutputInterpreter {
  private readonly text = new EventText();
  private inputTokens = 0;
  private outputTokens = 0;
  private cost = 0;
  private steps = 0;
  private error: string | undefined;
  /** The root session, for a re-prompt in the same session (`--session`). */
  sessionId: string | undefined;

  line(line: string, emit: (event: RunnerEvent) => void): void {
    const read = readEvent(line, Event, this.text, emit);
    if (!read) return;
    const { value, event } = read;
    this.sessionId ??= event.sessionID;
    switch (event.type) {
      case "text": {
        const text = TextPart.safeParse(value).data?.part.text;
        if (text) for (const l of text.split("\n")) this.text.keep(l, emit);
        return;
      }
      case "tool_use": {
        const part = ToolPart.safeParse(value).data?.part;
        if (!part?.tool) return;
        const state = part.state;
        const label =
          state?.status === "error"
            ? `${part.tool} failed: ${state.error ?? ""}`
            : `${part.tool}: ${state?.title ?? ""}`;
        emit({ type: "step", label: clip(label.trim()), tool: part.tool });
        return;
      }
      case "step_finish": {
        const part = StepFinish.safeParse(value).data?.part;
        this.steps++;
        this.inputTokens += part?.tokens?.input ?? 0;
        this.outputTokens += part?.tokens?.output ?? 0;
        this.cost += part?.cost ?? 0;
        emit({ type: "usage", usage: this.usage() });
        return;
      }
      case "error": {
        const error = ErrorEvent.safeParse(value).data?.error;
        this.error = `${error?.name ?? "error"}: ${error?.data?.message ?? "opencode reported an error"}`;
        this.text.keep(this.error, emit);
        return;
      }
    }
  }

  private usage(): RunUsage {
    return {
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      costUsd: Number(this.cost.toFixed(6)),
      turns: this.steps,
    };
  }

  result(): { output: string; usage: RunUsage; failure?: AgentFailure } {
    const usage = this.usage();
    const out: { output: string; usage: RunUsage; failure?: AgentFailure } = {
      output: this.text.text(),
      usage,
    };
    if (this.error) out.failure = { reason: "agent_error", message: this.error };
    return out;
  }
}
