/**
 * The scripted agent: a real child process that executes a plan made by the scripted runner (read as
 * JSON from stdin), so timeouts, crashes and kill -9 behave exactly as with a real agent.
 * Exit codes of its own: 64 for a plan that does not validate, 70 for a step that failed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AgentPlan } from "./agent-plan.js";
import { STEP_MARKER } from "./step-marker.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function progress(label: string, tool?: string): void {
  process.stdout.write(
    `${STEP_MARKER} ${JSON.stringify(tool === undefined ? { label } : { label, tool })}\n`,
  );
}

async function main(): Promise<void> {
  let plan: AgentPlan;
  try {
    plan = AgentPlan.parse(JSON.parse(await readStdin()));
  } catch (error) {
    process.stderr.write(`scripted-agent: invalid plan on stdin: ${(error as Error).message}\n`);
    process.exitCode = 64;
    return;
  }
  for (const [i, step] of plan.steps.entries()) {
    try {
      switch (step.op) {
        case "write":
          progress(step.label, "Write");
          mkdirSync(dirname(step.path), { recursive: true });
          writeFileSync(step.path, step.content);
          break;
        case "output":
          (step.stream === "stderr" ? process.stderr : process.stdout).write(`${step.text}\n`);
          break;
        case "progress":
          progress(step.label, step.tool);
          break;
        case "sleep":
          await sleep(step.ms);
          break;
        case "exit":
          // exitCode, not process.exit(): output still queued for the pipe must not be lost.
          process.exitCode = step.code;
          return;
        case "hang":
          if (step.ignoreSigterm) process.on("SIGTERM", () => {});
          setInterval(() => {}, 1 << 30);
          await new Promise(() => {});
          return;
        case "crash":
          process.kill(process.pid, "SIGKILL");
          await new Promise(() => {});
          return;
      }
    } catch (error) {
      process.stderr.write(`scripted-agent: step ${i} (${step.op}) failed: ${(error as Error).message}\n`);
      process.exitCode = 70;
      return;
    }
  }
}

await main();
