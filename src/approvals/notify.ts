import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BatonConfig } from "../config/index.js";
import { writeFileNamed } from "../shared/atomic-write.js";
import { runProcess } from "../shared/process.js";
import type { CurrentPlan, UnansweredStanding } from "./standing.js";

/** The person's own notification command, from their environment: never from the repository's files. */
export const APPROVAL_COMMAND_ENV = "BATON_APPROVAL_COMMAND";
const NOTIFIED_FILE = "approvals-notified.json";
const TIMEOUT_MS = 10_000;

/** What a notification says: enough to find and read the plan, and to answer for exactly these bytes. */
export interface PendingApproval {
  task: number;
  title: string;
  standing: UnansweredStanding;
  plan: CurrentPlan;
}

type Notified = Record<string, { at: string; delivered: string[]; failed: string[] }>;

function readNotified(path: string): Notified {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Notified) : {};
  } catch {
    return {};
  }
}

/**
 * Tells the person, once per pending approval (a task's plan content), that a plan waits: an HTTP POST of
 * JSON to `approvals.webhook`, and the command in $BATON_APPROVAL_COMMAND (run by /bin/sh with the same JSON
 * on stdin and BATON_TASK, BATON_PLAN, BATON_PLAN_SHA256 set). The command comes from the person's
 * environment only: the repository's configuration could otherwise make Baton run its code unsandboxed.
 * Delivery is tried once; what happened is kept in `specs/.baton/approvals-notified.json`. Never throws.
 */
export async function notifyPendingApproval(
  config: BatonConfig,
  internalDir: string,
  pending: PendingApproval,
): Promise<{ delivered: string[]; failed: string[] } | null> {
  const file = join(internalDir, NOTIFIED_FILE);
  const key = `${pending.task}:${pending.plan.contentSha256}`;
  const notified = readNotified(file);
  const command = process.env[APPROVAL_COMMAND_ENV]?.trim();
  if (notified[key] || (!config.approvals.webhook && !command)) return null;
  const body = JSON.stringify({
    event: "approval_pending",
    repository: config.root,
    task: pending.task,
    title: pending.title,
    standing: pending.standing,
    plan: pending.plan.path,
    sha256: pending.plan.sha256,
    contentSha256: pending.plan.contentSha256,
    answer: `baton approve ${pending.task} --sha256 ${pending.plan.sha256}`,
  });
  const outcome = { delivered: [] as string[], failed: [] as string[] };
  // Marked first: two runs that find the same pending plan at once must not both tell the person.
  notified[key] = { at: new Date().toISOString(), ...outcome };
  writeFileNamed(file, `${JSON.stringify(notified, null, 2)}\n`);
  if (config.approvals.webhook) await post(config.approvals.webhook, body, outcome);
  if (command) await run(config.root, command, body, pending, outcome);
  notified[key] = { at: notified[key].at, ...outcome };
  writeFileNamed(file, `${JSON.stringify(notified, null, 2)}\n`);
  return outcome;
}

async function post(url: string, body: string, outcome: { delivered: string[]; failed: string[] }) {
  try {
    const reply = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: "error",
    });
    if (reply.ok) outcome.delivered.push("webhook");
    else outcome.failed.push(`webhook: HTTP ${reply.status}`);
  } catch (error) {
    outcome.failed.push(`webhook: ${(error as Error).message}`);
  }
}

async function run(
  root: string,
  command: string,
  body: string,
  pending: PendingApproval,
  outcome: { delivered: string[]; failed: string[] },
) {
  const result = await runProcess({
    command,
    shell: true,
    cwd: root,
    stdin: body,
    timeoutMs: TIMEOUT_MS,
    env: {
      ...process.env,
      BATON_TASK: String(pending.task),
      BATON_PLAN: pending.plan.path,
      BATON_PLAN_SHA256: pending.plan.sha256,
    },
  });
  if (result.ok) outcome.delivered.push("command");
  else outcome.failed.push(`command: ${result.message}`);
}
