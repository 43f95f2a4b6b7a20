import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { batonKeyDir } from "../../src/shared/baton-paths.js";
import { locateClaudeBinary, runClaude } from "../../src/testing/claude-test-binary.js";
import {
  lastUserText,
  type MessagesRequest,
  promptOf,
  type ScriptInput,
  say,
  text,
  toolResults,
  toolUse,
} from "../../src/testing/fake-messages-api.js";
import { startOfflineClaude } from "../../src/testing/offline-claude.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { BATON_BIN } from "../support/cli.js";
import { git, ok, readJson, repo } from "./helpers.js";

/**
 * A whole interactive workflow with the real Claude Code binary, offline against the scripted fake
 * Messages API: `baton init` installs commands, agents and hooks; `claude -p "/research 1"` expands the
 * command (its `!` line runs gate-in), the scripted model delegates, and the hooks hold the line.
 * The scripted turns shared by the session tests live here.
 */
export const located = locateClaudeBinary();
requireUnderCi("the Claude Code binary", located.path === null ? located.reason : null);
export const BIN = `node ${BATON_BIN}`;
export const FOLDER = "specs/1_study_the_lexer";
export const REPORT = `# Research Report: the lexer\n\n## Findings\n${"- The lexer drops the last token when the input has no trailing newline (src/lexer.ts:40).\n".repeat(5)}`;

let cleanups: Array<() => unknown> = [];
/** Stops the fake APIs of the sessions run so far: every test file's afterEach. */
export async function closeSessions(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
}

/** Stops the hook server a session's SessionStart started for `dir` (the default, HTTP hooks), if one runs. */
async function stopHookServer(dir: string): Promise<void> {
  const port = (JSON.parse(readFileSync(join(dir, ".baton/init.json"), "utf8")) as { port?: number }).port;
  if (port === undefined) return;
  try {
    const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { pid: number };
    process.kill(health.pid, "SIGTERM");
  } catch {
    // no server, or already gone
  }
}

/** A repository with one task and a fresh `baton init` (its default hooks, unless `initArgs` say otherwise). */
export function initialisedRepo(initArgs: string[] = []): string {
  const dir = repo();
  ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
  ok(dir, ["init", "--bin", BIN, ...initArgs]);
  cleanups.push(() => stopHookServer(dir));
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "baton init"]);
  return dir;
}

/** The text between two lines that hold exactly `start` and `end` (the instructions mention both words too). */
export function between(prompt: string, start: string, end: string): string {
  const match = new RegExp(`^${start}$\\n([\\s\\S]*?)\\n^${end}$`, "m").exec(prompt);
  if (!match) throw new Error(`the gate-in output has no ${start} … ${end} block:\n${prompt}`);
  return match[1]!.trim();
}

export const line = (prompt: string, label: string) => {
  const match = new RegExp(`${label}:? (\\S+)`).exec(prompt);
  if (!match) throw new Error(`no "${label}" in:\n${prompt}`);
  return match[1]!;
};

/** The main thread's delegation, as gate-in told it, but without run_in_background: the hook adds it. */
export const delegate = ({ request }: { request: MessagesRequest }) => {
  const prompt = promptOf(request);
  return say(
    text("Delegating as instructed."),
    toolUse("Agent", {
      description: "research task 1",
      subagent_type: line(prompt, "subagent_type"),
      prompt: between(prompt, "BEGIN PROMPT", "END PROMPT"),
    }),
  );
};

export const gateOut = ({ request }: { request: MessagesRequest }) => {
  const command = /^\s*(\S.* gate-out research 1 --session sess_\S+)\s*$/m.exec(promptOf(request))?.[1];
  if (!command) throw new Error("no gate-out command in the expanded command");
  return say(toolUse("Bash", { command, description: "Close the checkpoint" }));
};

export const writeReport =
  (dir: string) =>
  ({ request }: { request: MessagesRequest }) =>
    say(
      toolUse("Write", {
        file_path: join(dir, line(promptOf(request), "Write the report to")),
        content: REPORT,
      }),
    );

export const writeMetadata =
  (dir: string) =>
  ({ request }: { request: MessagesRequest }) => {
    const prompt = promptOf(request);
    return say(
      toolUse("Write", {
        file_path: join(dir, line(prompt, "Write the return metadata, last, to")),
        content: JSON.stringify({
          status: "researched",
          summary: "The lexer drops the last token.",
          artifacts: [{ type: "research", path: line(prompt, "Write the report to") }],
          metadata: { session_id: line(prompt, "Session id"), agent_type: "baton-researcher" },
        }),
      }),
    );
  };

/** What the model was told about its last tool calls (denials included), as one text to match. */
export const toolResultsText = (request: MessagesRequest) =>
  toolResults(request)
    .map((r) => JSON.stringify(r))
    .join("\n");

export type Turn = ScriptInput["conversations"][number]["turns"][number];

/** The main thread's conversation: the expanded `/research 1`, recognised by gate-in's output. */
export const mainThread = (turns: Turn[]) => ({ name: "main", match: { prompt: "GATE IN passed" }, turns });

/**
 * The end of a sub-agent that stopped before its metadata: the stop, then — once SubagentStop sent it back,
 * which `record` is given to check — the metadata, and a last word.
 */
export const stopsThenWritesMetadata = (dir: string, record: (feedback: string) => void): Turn[] => [
  say(text("Report written; I am done.")),
  {
    reply: (context) => {
      record(lastUserText(context.request));
      return writeMetadata(dir)(context);
    },
  },
  say(text("Metadata written too.")),
];

/** A main thread that does what gate-in told it: delegate, close with gate-out, say so. */
export const obedientMain = (last = "Done.") =>
  mainThread([{ reply: delegate }, { reply: gateOut }, say(text(last))]);

/** The sub-agent's usual work: report, metadata, a final word. */
export const researcher = (dir: string) => ({
  name: "researcher",
  match: { subagent: true, prompt: "Baton delegates research of task 1" },
  turns: [
    { reply: writeReport(dir) },
    { reply: writeMetadata(dir) },
    say(text("Report and metadata written.")),
  ],
});

/** Claude Code's permission modes people work in, and the one unattended runs use. */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions";

/**
 * The arguments that run a prompt in `mode`. In the modes that ask, `-p` cannot ask a person, so the tools an
 * honest session uses are allowed up front, as a person who answers "yes" would.
 */
export function modeArgs(mode: PermissionMode): string[] {
  const asks = mode !== "bypassPermissions";
  return ["--permission-mode", mode, ...(asks ? ["--allowedTools", "Bash,Write,Edit,Read,Agent"] : [])];
}

export async function session(
  dir: string,
  script: ScriptInput,
  options: { mode?: PermissionMode; prompt?: string; ownKey?: boolean } = {},
) {
  const { api, env, close } = await startOfflineClaude(script);
  cleanups.push(close);
  const run = await runClaude({
    cwd: dir,
    args: [
      "-p",
      options.prompt ?? "/research 1",
      "--output-format",
      "json",
      ...modeArgs(options.mode ?? "bypassPermissions"),
    ],
    // One person's sessions share their key: the test's own, which signed the adoption at `baton init`.
    env: options.ownKey ? { ...env, BATON_KEY_DIR: batonKeyDir() } : env,
    timeoutMs: 90_000,
  });
  const result = run.messages.at(-1) ?? {};
  const hookLog = existsSync(join(dir, ".baton/logs/hooks.jsonl"))
    ? readFileSync(join(dir, ".baton/logs/hooks.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
  return { api, run, result, hookLog };
}

export function expectResearched(dir: string) {
  expect(readJson(dir, "state.json").active_projects[0]).toMatchObject({ status: "researched" });
  expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("task 1: complete research");
  expect(existsSync(join(dir, FOLDER, ".baton-postflight-pending"))).toBe(false);
  expect(existsSync(join(dir, "specs/.baton/checkpoints/1.json"))).toBe(false);
}

export type DelegatedOperation = "research" | "plan" | "implement";

/** The gate-out command gate-in printed for `operation` of task 1, run as printed. */
export const gateOutOf =
  (operation: DelegatedOperation) =>
  ({ request }: { request: MessagesRequest }) => {
    const pattern = new RegExp(`^\\s*(\\S.* gate-out ${operation} 1 --session sess_\\S+)\\s*$`, "m");
    const command = pattern.exec(promptOf(request))?.[1];
    if (!command) throw new Error(`no gate-out command for ${operation} in the expanded command`);
    return say(toolUse("Bash", { command, description: "Close the checkpoint" }));
  };

/** A main thread that delegates `operation` as gate-in told it and closes it with the printed gate-out. */
export const honestMain = (operation: DelegatedOperation, last = "Done.") =>
  mainThread([{ reply: delegate }, { reply: gateOutOf(operation) }, say(text(last))]);

export const PLAN = (session: string) =>
  [
    "# Implementation Plan: Task #1",
    "",
    "- **Task**: 1 - Study the lexer",
    "- **Status**: [NOT STARTED]",
    `- **Session**: ${session}`,
    "",
    "## Implementation Phases",
    "",
    "### Phase 1: Fix the lexer [NOT STARTED]",
    "",
    "- **Dependencies:** None",
    "- **Goal:** keep the last token",
    "",
    "**Tasks:**",
    "- [ ] Keep the last token when the input has no trailing newline",
    "",
    "**Verification**:",
    "- the lexer keeps the last token",
    "",
  ].join("\n");

const SUMMARY = `# Implementation Summary\n\n${"The lexer now keeps the last token when the input has no trailing newline. ".repeat(6)}\n`;

/**
 * The delegated agent of `operation` doing honest work: it reads its task with Bash (sandboxed in a session
 * after `baton init`), writes what its prompt names with the Write tool, and its metadata last.
 */
export const honestAgent = (dir: string, operation: DelegatedOperation, via: "tools" | "bash" = "tools") => {
  const artifactLabel = { research: "report", plan: "plan", implement: "summary" }[operation];
  // Plan mode holds every file-tool write of a sub-agent for the person; an agent then writes with Bash,
  // which Claude Code's sandbox runs (the store and Baton's files stay read-only there).
  const write = (path: string, content: string) =>
    via === "tools"
      ? say(toolUse("Write", { file_path: join(dir, path), content }))
      : say(
          toolUse("Bash", {
            command: `mkdir -p "$(dirname '${path}')" && cat > '${path}' <<'BATON_EOF'\n${content}\nBATON_EOF`,
            description: `Write ${path}`,
          }),
        );
  const metadata = (prompt: string) => {
    const artifact = line(prompt, `Write the ${artifactLabel} to`);
    const status = { research: "researched", plan: "planned", implement: "implemented" }[operation];
    const type = { research: "research", plan: "plan", implement: "summary" }[operation];
    return JSON.stringify({
      status,
      summary: `The ${operation} of task 1 is done.`,
      artifacts: [{ type, path: artifact }],
      ...(operation === "implement"
        ? { files_changed: ["src/lexer.ts"], completion_data: { completion_summary: "Last token kept." } }
        : {}),
      metadata: {
        session_id: line(prompt, "Session id"),
        agent_type: `baton-${operation === "research" ? "researcher" : operation === "plan" ? "planner" : "implementer"}`,
      },
    });
  };
  const steps: Turn[] = [
    say(
      toolUse("Bash", {
        command: "cat specs/state.json >/dev/null && ls specs",
        description: "Read the task",
      }),
    ),
    ...(operation === "implement" ? [write("src/lexer.ts", "export const keepsLastToken = true;")] : []),
    {
      reply: ({ request }) => {
        const prompt = promptOf(request);
        const path = line(prompt, `Write the ${artifactLabel} to`);
        const content =
          operation === "research"
            ? REPORT
            : operation === "plan"
              ? PLAN(line(prompt, "Session id"))
              : SUMMARY;
        return write(path, content);
      },
    },
    {
      reply: ({ request }) =>
        write(line(promptOf(request), "Write the return metadata, last, to"), metadata(promptOf(request))),
    },
    say(text(`The ${operation} is written.`)),
  ];
  return {
    name: operation,
    match: { subagent: true, prompt: `Baton delegates ${operation} of task 1` },
    turns: steps,
  };
};

/** A repository after `baton init` whose task 1 is planned, its plan committed (no session spent on it). */
export function plannedRepo(): string {
  const dir = initialisedRepo();
  ok(dir, ["task", "status", "1", "planned", "--force"]);
  mkdirSync(join(dir, FOLDER, "plans"), { recursive: true });
  writeFileSync(join(dir, FOLDER, "plans", "implementation-001.md"), PLAN("sess_1700000000_abcdef"));
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "planned"]);
  return dir;
}
