import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { APPROVAL_VERDICTS } from "../approvals/index.js";
import type { BatonConfig } from "../config/index.js";
import { packageVersion } from "../shared/package.js";
import { registerResources } from "./mcp-resources.js";
import { type McpRun, McpRuns } from "./mcp-runs.js";
import {
  AnswerInput,
  answerTool,
  asRefusal,
  RunInput,
  refusal,
  reply,
  StartInput,
  statusTool,
  TasksInput,
  type ToolReply,
  tasksTool,
} from "./mcp-tools.js";

export interface McpOptions {
  /** Passed to every operation it starts (`--script F`, `--runner R`). */
  operationArgs: readonly string[];
  /** A person started this server and consents to its client answering for plans (`--allow-approvals`). */
  allowApprovals: boolean;
}

/** A tool's handler whose thrown errors come back as refusals with Baton's codes. */
const safely =
  <A>(handler: (args: A) => Promise<ToolReply>) =>
  async (args: A): Promise<ToolReply> => {
    try {
      return await handler(args);
    } catch (error) {
      return asRefusal(error);
    }
  };

/** A tool on one run: the run this server started under that id, or RUN_NOT_FOUND. */
const forRun = (runs: McpRuns, handler: (run: McpRun) => Promise<ToolReply>) =>
  safely(async ({ run }: { run: string }) => {
    const found = runs.get(run);
    return found ? handler(found) : refusal("RUN_NOT_FOUND", `no run ${run} was started by this server`);
  });

/**
 * `baton mcp`: Baton's gated workflow for any MCP client, over stdio. A handful of tools — list and show
 * tasks, start an operation (returns at once with a run id), a run's status and result, cancel, and (only
 * with a person's consent flag) approve and reject — and a task's plan and artifacts as resources. Every
 * operation is a real `baton <operation> N` through GATE IN → DELEGATE → GATE OUT → COMMIT; no tool sets a
 * status or writes the store. Refusals carry Baton's codes.
 */
export function buildMcpServer(
  config: BatonConfig,
  options: McpOptions,
): { server: McpServer; runs: McpRuns } {
  const server = new McpServer({ name: "baton", version: packageVersion() });
  const runs = new McpRuns(config, options.operationArgs);
  registerRunTools(server, config, runs);
  if (options.allowApprovals) {
    for (const verdict of APPROVAL_VERDICTS)
      server.registerTool(
        verdict === "approved" ? "approve" : "reject",
        {
          description: `${verdict === "approved" ? "Approve" : "Reject (with a reason)"} a task's current plan, named by the sha256 of the bytes read (from \`tasks\`). Allowed because a person started this server with --allow-approvals.`,
          inputSchema: AnswerInput,
        },
        safely((args) => answerTool(config, verdict, args)),
      );
  }
  registerResources(server, config);
  return { server, runs };
}

function registerRunTools(server: McpServer, config: BatonConfig, runs: McpRuns): void {
  server.registerTool(
    "tasks",
    {
      description:
        "List the active tasks (optionally by status), or show one task whole: its artifacts and whether its plan waits for approval.",
      inputSchema: TasksInput,
    },
    safely((args) => tasksTool(config, args)),
  );
  server.registerTool(
    "start",
    {
      description:
        "Start research, plan, implement or revise on a task. Returns at once with a run id: ask `status` until it ends. Baton's gates decide; a refusal comes back as the run's verdict.",
      inputSchema: StartInput,
    },
    safely(async ({ operation, task, focus }) => {
      const run = runs.start(operation, task, focus);
      return reply({ run: run.id, task, operation, state: run.state });
    }),
  );
  server.registerTool(
    "status",
    {
      description:
        "A run's state, what it is doing, what it spent, a plan waiting for a person, and its verdict once it ended.",
      inputSchema: RunInput,
    },
    forRun(runs, async (found) => statusTool(config, runs, found)),
  );
  registerEndTools(server, runs);
}

/** `result` and `cancel`: a run's whole report once it ended, and stopping it. */
function registerEndTools(server: McpServer, runs: McpRuns): void {
  server.registerTool(
    "result",
    {
      description:
        "A finished run's whole report (the CLI's --json report: verdict, artifacts, phases, cost).",
      inputSchema: RunInput,
    },
    forRun(runs, async (found) => {
      if (found.state === "running")
        return refusal("RUN_NOT_FINISHED", `run ${found.id} is still running: ask \`status\``);
      return found.report
        ? reply({ run: found.id, report: found.report })
        : refusal("RUN_FAILED", found.failure ?? "no report");
    }),
  );
  server.registerTool(
    "cancel",
    {
      description: "Stop a running run: its agent is stopped and the task goes back as after Ctrl-C.",
      inputSchema: RunInput,
    },
    forRun(runs, async (found) => {
      runs.cancel(found);
      await found.done;
      return reply({ run: found.id, state: found.state, verdict: found.report?.result ?? null });
    }),
  );
}

/** Serves over stdio until the client goes; runs still going are then stopped cleanly. */
export async function serveMcp(config: BatonConfig, options: McpOptions): Promise<void> {
  const { server, runs } = buildMcpServer(config, options);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  process.stdin.on("end", () => void server.close());
  await closed;
  await runs.stopAll();
}
