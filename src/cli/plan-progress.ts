import type { PlanProgressEvent } from "../engine/index.js";
import { monotonicMs } from "../shared/time.js";

interface PhaseLine {
  id: string;
  name: string;
  wave: number;
  state: "waiting" | "running" | "done" | "stopped";
  iteration: number;
  agent: string;
  since: number;
  step: string;
  result: string;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The plan's waves and phases as they run. On a terminal the current wave is a block redrawn in place
 * (finished waves scroll up as plain lines); otherwise every change is one plain line.
 */
export class PlanBoard {
  private readonly phases = new Map<string, PhaseLine>();
  private wave = -1;
  private total = 0;

  /** Applies an event; returns the plain line that describes it, if it deserves one. */
  handle(event: PlanProgressEvent, now = monotonicMs()): string | null {
    switch (event.type) {
      case "wave":
        this.total = event.total;
        if (event.event === "started") {
          this.wave = event.wave;
          for (const id of event.phases) this.line(id, event.wave, now);
          return `Wave ${event.wave + 1}/${event.total}: Phase ${event.phases.join(", ") || "(nothing to run)"}`;
        }
        return `Wave ${event.wave + 1}/${event.total} ${event.event === "stopped" ? "stopped" : "done"}`;
      case "phase_started": {
        const line = this.line(event.id, event.wave, now);
        Object.assign(line, {
          name: event.name,
          state: "running",
          iteration: event.iteration,
          agent: event.agent,
          step: "",
        });
        if (event.iteration === 1) line.since = now;
        return `  Phase ${event.id}: ${event.name} → ${event.agent}${event.iteration > 1 ? ` (iteration ${event.iteration})` : ""}`;
      }
      case "phase_runner": {
        const line = this.phases.get(event.id);
        if (line && event.event.type === "step") {
          line.step = event.event.tool ? `${event.event.tool}: ${event.event.label}` : event.event.label;
        }
        return null;
      }
      case "phase_recorded": {
        const line = this.line(event.id, event.wave, now);
        const v = event.record.verdict;
        line.name = event.name;
        line.state = v.kind === "complete" ? "done" : "stopped";
        const commit =
          event.record.commit && "sha" in event.record.commit
            ? `, ${event.record.commit.sha.slice(0, 7)}`
            : "";
        line.result =
          v.kind === "complete"
            ? `[${event.record.marker}] ${seconds(now - line.since)}${commit}`
            : `[${event.record.marker}] ${v.kind === "partial" || v.kind === "dependency_blocked" ? v.message : `${v.code}: ${v.message}`}`;
        return `  Phase ${event.id}: ${event.name} ${line.result}`;
      }
    }
  }

  private line(id: string, wave: number, now: number): PhaseLine {
    let line = this.phases.get(id);
    if (!line) {
      line = {
        id,
        name: "",
        wave,
        state: "waiting",
        iteration: 0,
        agent: "",
        since: now,
        step: "",
        result: "",
      };
      this.phases.set(id, line);
    }
    return line;
  }

  /** The block for a terminal: the current wave's phases with spinner, elapsed time and current step. */
  render(frame: string, now = monotonicMs()): string[] {
    if (this.wave < 0) return [];
    const lines = [`Wave ${this.wave + 1}/${this.total}`];
    for (const line of this.phases.values()) {
      if (line.wave !== this.wave) continue;
      const mark =
        line.state === "done" ? "✓" : line.state === "stopped" ? "✗" : line.state === "running" ? frame : "·";
      const head = `  ${mark} Phase ${line.id}${line.name ? `: ${line.name}` : ""}`;
      if (line.state === "running") {
        const iteration = line.iteration > 1 ? ` iteration ${line.iteration}` : "";
        lines.push(
          `${head} — ${line.agent}${iteration} ${seconds(now - line.since)}${line.step ? ` · ${line.step}` : ""}`,
        );
      } else lines.push(line.state === "waiting" ? `${head} — waiting` : `${head} ${line.result}`);
    }
    return lines;
  }
}
