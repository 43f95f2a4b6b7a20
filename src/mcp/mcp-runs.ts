import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import type { BatonConfig } from "../config/index.js";
import { type BatonEvent, eventsPath, parseEventLines, readFrom } from "../shared/event-stream.js";
import { binScript } from "../shared/package.js";
import { runProcess } from "../shared/process.js";
import type { Operation } from "../state/index.js";

/** What a `baton <operation> N --json` process printed of how it ended (the engine's OperationReport, as JSON, passed through). */
export interface PrintedReport {
  sessionId?: string;
  status?: string;
  result?: { ok: boolean; code?: string; message?: string; outcome?: string };
  [key: string]: unknown;
}

/** One operation an MCP client started: a real `baton <operation> N --json` process, gated like any other. */
export interface McpRun {
  id: string;
  task: number;
  operation: Operation;
  startedAt: string;
  state: "running" | "finished" | "cancelled";
  /** Where the event stream stood when it started: what it did since is read from there. */
  offset: number;
  report: PrintedReport | null;
  /** What the process said when it gave no report (it could not start, or died). */
  failure: string | null;
  controller: AbortController;
  done: Promise<void>;
}

function streamOffset(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * The runs this server started. Each returns at once (MCP clients cut a tool call after a few minutes), and is
 * asked about by its id; every one goes through GATE IN → DELEGATE → GATE OUT → COMMIT exactly as the CLI's.
 */
export class McpRuns {
  private readonly runs = new Map<string, McpRun>();

  constructor(
    private readonly config: BatonConfig,
    /** Passed to every operation (`--script F`, `--runner R`), as `baton run` passes them. */
    private readonly operationArgs: readonly string[],
  ) {}

  start(operation: Operation, task: number, focus: string | undefined): McpRun {
    const id = `run_${randomBytes(6).toString("hex")}`;
    const controller = new AbortController();
    const args = [
      binScript(),
      operation,
      String(task),
      ...(focus ? [focus] : []),
      "--json",
      ...this.operationArgs,
    ];
    const run: McpRun = {
      id,
      task,
      operation,
      startedAt: new Date().toISOString(),
      state: "running",
      offset: streamOffset(eventsPath(this.config.root)),
      report: null,
      failure: null,
      controller,
      done: Promise.resolve(),
    };
    run.done = runProcess({
      command: process.execPath,
      args,
      cwd: this.config.root,
      timeoutMs: 0,
      signal: controller.signal,
      // A stopped run records its failure and stops its agent before it exits: give it the time.
      killGraceMs: 20_000,
      onParentStop: "owner",
      tailBytes: 4 * 1024 * 1024,
    }).then((result) => {
      try {
        run.report = JSON.parse(result.stdout) as PrintedReport;
      } catch {
        run.failure = (result.stderr || (result.ok ? "" : result.message) || "no report").trim().slice(-2000);
      }
      if (run.state === "running") run.state = "finished";
    });
    this.runs.set(id, run);
    return run;
  }

  get(id: string): McpRun | undefined {
    return this.runs.get(id);
  }

  cancel(run: McpRun): void {
    if (run.state !== "running") return;
    run.state = "cancelled";
    run.controller.abort();
  }

  /** The events the run's task had since it started: phases, agents, gates, spend. */
  events(run: McpRun): BatonEvent[] {
    const { text } = readFrom(eventsPath(this.config.root), run.offset);
    return parseEventLines(text).filter((e) => e.task === run.task);
  }

  /** On the way out (the client went): every run still going is stopped cleanly and waited for. */
  async stopAll(): Promise<void> {
    const going = [...this.runs.values()].filter((r) => r.state === "running");
    for (const run of going) this.cancel(run);
    await Promise.all(going.map((r) => r.done));
  }
}
