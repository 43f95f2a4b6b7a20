import { loadConfig } from "../../config/index.js";
import {
  closeSessionGate,
  openSessionGate,
  type SessionGateIn,
  type SessionGateOut,
} from "../../engine/index.js";
import { agentFileReaders, sessionHostNamed } from "../../hosts/index.js";
import { installedBin } from "../../init/index.js";
import { UsageError } from "../../shared/index.js";
import { isOperation } from "../../shared/operation-names.js";
import { OPERATIONS, type Operation } from "../../state/index.js";
import { leftOutLines } from "../progress.js";
import { parseTaskNumber } from "./task.js";

function parseOperation(value: string): Operation {
  if (isOperation(value)) return value;
  throw new UsageError(`unknown operation "${value}"`, { hint: `Use one of: ${OPERATIONS.join(", ")}.` });
}

/** `baton gate-in <op> N [focus…]`: opens the checkpoint inside a Claude Code session. */
export async function gateInCommand(options: {
  repo: string;
  operation: string;
  number: string;
  focus?: string[] | undefined;
  force?: boolean | undefined;
  agent?: string | undefined;
  language?: string | undefined;
  claudeSessionId?: string | undefined;
}): Promise<SessionGateIn & { installedBin?: string }> {
  const config = await loadConfig(options.repo);
  // The gate-out command must be spelled as `baton init` allowed it in the command's allowed-tools.
  const bin = installedBin(config.root);
  const result = await openSessionGate({
    agentFiles: agentFileReaders(),
    config,
    operation: parseOperation(options.operation),
    taskNumber: parseTaskNumber(options.number),
    focus: options.focus && options.focus.length > 0 ? options.focus.join(" ") : undefined,
    force: options.force,
    agentOverride: options.agent,
    languageOverride: options.language,
    claudeSessionId: options.claudeSessionId,
  });
  return bin === undefined ? result : { ...result, installedBin: bin };
}

/** `baton gate-out <op> N --session S`: verifies, records, commits. */
export async function gateOutCommand(options: {
  repo: string;
  operation: string;
  number: string;
  session: string;
  commit?: boolean | undefined;
}): Promise<SessionGateOut> {
  if (!/^sess_\d{10}_[0-9a-f]{6}$/.test(options.session)) {
    throw new UsageError(`--session must be the id gate-in printed (sess_…), got "${options.session}"`);
  }
  const config = await loadConfig(options.repo);
  return closeSessionGate({
    agentFiles: agentFileReaders(),
    config,
    operation: parseOperation(options.operation),
    taskNumber: parseTaskNumber(options.number),
    sessionId: options.session,
    commit: options.commit,
  });
}

/** The host whose model reads gate-in's text (`--host`), checked before anything runs. */
export function gateHost(value: string | undefined): string {
  return sessionHostNamed(value).host.name;
}

/** What the model reads after gate-in: who to invoke, with what, and the one command that closes it. */
export function formatGateIn(result: SessionGateIn, self: string, host?: string): string {
  if (!result.ok) {
    return [
      `GATE IN refused for ${result.operation} of task ${result.taskNumber}: ${result.reason}`,
      "Do not do the work yourself. Report this refusal to the user and stop.",
    ].join("\n");
  }
  const close = `${self} gate-out ${result.operation} ${result.taskNumber} --session ${result.sessionId}`;
  return [
    `GATE IN passed: task ${result.taskNumber} is ${result.status}.`,
    `BATON_SESSION: ${result.sessionId}`,
    "",
    ...sessionHostNamed(host).session.delegationLines(result),
    `The agent writes its return metadata to ${result.metadataPath}. Do not do the agent's work yourself,`,
    "and do not write that file, state.json or TODO.md yourself.",
    "When the agent has returned, run this command and report its output:",
    `  ${close}`,
    "",
    "BEGIN PROMPT",
    result.prompt,
    "END PROMPT",
  ].join("\n");
}

export function formatGateOut(result: SessionGateOut): string {
  if (!result.ok) {
    return [
      `GATE OUT refused ${result.operation} of task ${result.taskNumber} [${result.code}]: ${result.message}`,
      result.code === "COMMIT_FAILED"
        ? `The result is recorded but not committed; its checkpoint stays open until \`baton recover ${result.taskNumber}\` commits it. Report this to the user.`
        : `The task stays ${result.status} and can be run again (see docs/errors.md). Report this to the user.`,
    ].join("\n");
  }
  const commit = result.committed
    ? "committed"
    : `not committed (${result.commitError ?? "nothing to commit"})`;
  return [
    `GATE OUT passed: task ${result.taskNumber} ${result.operation} ${result.outcome === "partial" ? "partly done" : "done"} → ${result.status} (${result.sessionId}), ${commit}.`,
    ...result.artifacts.map((a) => `  artifact: ${a}`),
    ...leftOutLines(result.leftOut),
  ].join("\n");
}
