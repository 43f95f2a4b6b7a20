import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, expect, onTestFinished } from "vitest";
import { generatePlan, type PlanPhaseSpec } from "../../src/testing/generate-plan.js";
import { type GeneratedRepo, type GenerateOptions, generateRepo } from "../../src/testing/generate-repo.js";
import {
  BATON_BIN,
  type CliResult,
  git,
  REMOVE_OPTIONS,
  runBaton,
  tempGitRepo,
  waitFor,
} from "../support/cli.js";

/**
 * Shared plumbing for the end-to-end suite: every test runs the built CLI (bin/baton.js → dist/) as a
 * child process in a real temporary git repository, and inspects the files it leaves behind.
 */

if (!existsSync(join(dirname(BATON_BIN), "..", "dist", "cli", "main.js"))) {
  throw new Error("dist/ is missing: run `node scripts/build.mjs` before the e2e suite");
}

export type { CliResult };
export { git, runBaton };

/** A fresh empty folder in the temp dir (keys, clones, hidden checks), removed when the current test finishes. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, REMOVE_OPTIONS));
  return dir;
}

/** A fresh git repository, removed when the current test finishes. */
export function repo(): string {
  const { dir, cleanup } = tempGitRepo("baton-e2e-");
  onTestFinished(cleanup);
  return dir;
}

/**
 * A per-file template: `build` runs once (CLI calls cost ~100 ms each), then every call returns a fresh
 * repository holding a copy of the template's specs/. Call at module or describe level.
 */
export function templateRepo(build: (dir: string) => void): () => string {
  let template: string | undefined;
  afterAll(() => {
    if (template) rmSync(template, REMOVE_OPTIONS);
  });
  return () => {
    if (template === undefined) {
      template = tempGitRepo("baton-e2e-template-").dir;
      build(template);
    }
    const dir = repo();
    cpSync(join(template, "specs"), join(dir, "specs"), { recursive: true });
    return dir;
  };
}

/** A generated realistic specs/ tree in a fresh repository, committed so `git diff` shows what changed. */
export function generatedRepo(options: Omit<GenerateOptions, "dir">): { dir: string; gen: GeneratedRepo } {
  const dir = repo();
  const gen = generateRepo({ ...options, dir });
  commitAll(dir, "generated");
  return { dir, gen };
}

/** A copy of a whole repository (git history included), removed when the current test finishes. */
export function cloneRepo(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), "baton-e2e-"));
  onTestFinished(() => rmSync(copy, REMOVE_OPTIONS));
  cpSync(dir, copy, { recursive: true });
  return copy;
}

// Repositories the setup helpers build once per test file, by what was asked for.
const builtRepos = new Map<string, string>();
afterAll(() => {
  for (const dir of builtRepos.values()) rmSync(dir, REMOVE_OPTIONS);
  builtRepos.clear();
});

/**
 * A copy (history included) of the repository `build` made for `key`, once per test file: a setup that
 * several tests share runs its CLI calls once (each costs a Node start, about 0.35 CPU-s on a loaded
 * machine), and every test still gets a repository of its own.
 */
function builtOnce(key: string, build: (dir: string) => void): string {
  let built = builtRepos.get(key);
  if (built === undefined) {
    const { dir, cleanup } = tempGitRepo("baton-e2e-built-");
    try {
      build(dir);
    } catch (error) {
      cleanup();
      throw error;
    }
    builtRepos.set(key, dir);
    built = dir;
  }
  return cloneRepo(built);
}

export function commitAll(dir: string, message: string): void {
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", message]);
}

function describeRun(args: readonly string[], result: CliResult): string {
  return `baton ${args.join(" ")} → exit ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** Runs the CLI and fails the test (showing its output) unless it exits 0. */
export function ok(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const result = runBaton(cwd, args, env);
  if (result.status !== 0) throw new Error(`expected success: ${describeRun(args, result)}`);
  return result;
}

/** Runs the CLI expecting it to fail with `status`; returns stderr for message checks. */
export function fails(cwd: string, args: string[], status = 1, env: NodeJS.ProcessEnv = {}): CliResult {
  const result = runBaton(cwd, args, env);
  if (result.status !== status) throw new Error(`expected exit ${status}: ${describeRun(args, result)}`);
  return result;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read CLI output of many shapes and assert on it directly
export function okJson<T = any>(cwd: string, args: string[]): T {
  const result = ok(cwd, [...args, "--json"]);
  return JSON.parse(result.stdout) as T;
}

/** The async form, for commands that must run at the same time. */
export function runBatonAsync(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BATON_BIN, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

export function specs(dir: string, ...parts: string[]): string {
  return join(dir, "specs", ...parts);
}

export function read(dir: string, ...parts: string[]): string {
  return readFileSync(specs(dir, ...parts), "utf8");
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary specs/ JSON and assert on it directly
export function readJson<T = any>(dir: string, ...parts: string[]): T {
  return JSON.parse(read(dir, ...parts)) as T;
}

export function write(dir: string, rel: string, content: string): void {
  const path = specs(dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/**
 * Every file under `root` (recursively, dot files included) → its bytes. Baton's own control folder
 * `specs/.baton/` (lock, journal, its .gitignore) is left out; `expectSpecsUnchanged` checks it separately.
 */
export function snapshot(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (dir === root && name === ".baton") continue;
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(root, path), readFileSync(path));
    }
  };
  walk(root);
  return out;
}

/** Asserts that no file under specs/ was created, deleted or changed by a single byte, and no lock or journal is left. */
export function expectSpecsUnchanged(dir: string, before: Map<string, Buffer>): void {
  expect(existsSync(specs(dir, ".baton", "lock")), "lock left behind").toBe(false);
  expect(existsSync(specs(dir, ".baton", "journal.json")), "journal left behind").toBe(false);
  const after = snapshot(specs(dir));
  expect([...after.keys()]).toEqual([...before.keys()]);
  for (const [path, bytes] of before) {
    expect(after.get(path)?.equals(bytes), `${path} changed`).toBe(true);
  }
}

export interface StateTask {
  project_number: number;
  project_name: string;
  status: string;
  language?: string;
  [key: string]: unknown;
}

export function activeTasks(dir: string): StateTask[] {
  return readJson<{ active_projects: StateTask[] }>(dir, "state.json").active_projects;
}

export function task(dir: string, n: number): StateTask {
  const found = activeTasks(dir).find((t) => t.project_number === n);
  if (!found) throw new Error(`task ${n} is not in state.json`);
  return found;
}

export function archivedEntries(dir: string): StateTask[] {
  return readJson<{ completed_projects: StateTask[] }>(dir, "archive", "state.json").completed_projects;
}

/** Task numbers of TODO.md entry headings, in file order. */
export function todoNumbers(dir: string): number[] {
  return [...read(dir, "TODO.md").matchAll(/^### (\d+)\. /gm)].map((m) => Number(m[1]));
}

/** The lines of one TODO.md entry, heading first, up to (not including) the next heading. */
export function todoEntry(dir: string, n: number): string[] {
  const lines = read(dir, "TODO.md").split("\n");
  const start = lines.findIndex((l) => l.startsWith(`### ${n}. `));
  if (start === -1) throw new Error(`task ${n} has no TODO.md entry`);
  let end = start + 1;
  while (end < lines.length && !/^#{1,3} \S/.test(lines[end]!)) end++;
  return lines.slice(start, end);
}

export function todoStatusOf(dir: string, n: number): string | undefined {
  return todoEntry(dir, n)
    .map((l) => /^- \*\*Status\*\*: (\[[A-Z ]+\])/.exec(l)?.[1])
    .find((m) => m !== undefined);
}

/** `next_project_number` from state.json and from the TODO.md frontmatter. */
export function nextNumbers(dir: string): { state: number; todo: number | undefined } {
  const fm = /^---\n([\s\S]*?)\n---/.exec(read(dir, "TODO.md"))?.[1] ?? "";
  const todo = /^next_project_number: (\d+)$/m.exec(fm)?.[1];
  return {
    state: readJson(dir, "state.json").next_project_number,
    todo: todo === undefined ? undefined : Number(todo),
  };
}

/** Lines removed (-) and added (+) by the working-tree diff of one file, without the diff headers. */
export function diffLines(dir: string, path: string): string[] {
  return git(dir, ["diff", "-U0", "--", path])
    .split("\n")
    .filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
}

export const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export function snapshotSpecs(dir: string): Map<string, Buffer> {
  return snapshot(specs(dir));
}

/** Runs independent commands at the same time (read-only or refused ones), results in argument order. */
export function runAll(cwd: string, commands: string[][]): Promise<CliResult[]> {
  return Promise.all(commands.map((args) => runBatonAsync(cwd, args)));
}

export const RESEARCH_REPORT = `# Research Report\n\n${"A finding with its evidence. ".repeat(12)}\n`;

/** A scripted researcher that writes a real report and its metadata: a research that GATE OUT accepts. */
export const GOOD_RESEARCH = [
  { write: "{task_folder}/reports/research-001.md", content: RESEARCH_REPORT },
  {
    writeMetadata: {
      status: "researched",
      summary: "found it",
      artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md" }],
      metadata: { session_id: "{session_id}", agent_type: "scripted" },
    },
  },
];

/**
 * A researcher that first notes it started (`notes/started.md` in its task folder), then waits `sleepMs`, then
 * writes a report GATE OUT accepts; its script is kept in .git/ (out of the work). Returns the script's path.
 */
export function startedResearcher(dir: string, sleepMs = 0): string {
  const path = join(dir, ".git", "agent.json");
  const steps = [
    { write: "{task_folder}/notes/started.md", content: "started\n" },
    ...(sleepMs > 0 ? [{ sleepMs }] : []),
    ...GOOD_RESEARCH,
  ];
  writeFileSync(path, JSON.stringify({ steps }));
  return path;
}

/** Waits (up to 30 s: a CLI start, then the agent's) until the agent of `startedResearcher` has started in `taskFolder`. */
export async function agentStarted(dir: string, taskFolder: string): Promise<void> {
  await waitFor(() => existsSync(specs(dir, taskFolder, "notes", "started.md")), 30_000, 25);
}

/** Writes a scripted agent's steps to `<dir>/<name>.json` and returns its path. */
export function scriptFile(dir: string, name: string, steps: unknown[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ steps }));
  return path;
}

/** A repository with one committed general task, 1. */
export function oneTaskRepo(title = "Study the lexer"): string {
  return builtOnce(JSON.stringify(["one task", title]), (dir) => {
    ok(dir, ["task", "add", title, "-l", "general"]);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "init"]);
  });
}

/**
 * Plays the delegated sub-agent of an in-session checkpoint the way Claude Code reports it to Baton's
 * hooks: the main thread's Agent call with gate-in's prompt (PreToolUse), SubagentStart, then `write`
 * performed as the sub-agent's tool call (PostToolUse with its agent_id), then its stop.
 */
export function asSubagent(
  dir: string,
  batonSession: string,
  write: () => void,
  options: { agentType?: string; agentId?: string; claudeSession?: string; lastMessage?: string } = {},
): void {
  const agentType = options.agentType ?? "baton-researcher";
  const agentId = options.agentId ?? "agent-e2e-1";
  // Claude Code keeps a sub-agent's transcript beside the session's; its first line is the prompt.
  const prompt = `Baton delegates this task. session_id: ${batonSession}`;
  // Outside the repository, as Claude Code's are (~/.claude/projects/…).
  const transcripts = mkdtempSync(join(tmpdir(), "baton-transcripts-"));
  onTestFinished(() => rmSync(transcripts, REMOVE_OPTIONS));
  mkdirSync(join(transcripts, "main", "subagents"), { recursive: true });
  writeFileSync(
    join(transcripts, "main", "subagents", `agent-${agentId}.jsonl`),
    `${JSON.stringify({ type: "user", message: { content: prompt } })}\n`,
  );
  const common = {
    session_id: options.claudeSession ?? "cc-1",
    transcript_path: join(transcripts, "main.jsonl"),
    cwd: dir,
  };
  const hook = (event: string, input: Record<string, unknown>) => {
    const result = spawnSyncInput(dir, ["hook", event], JSON.stringify({ ...common, ...input }));
    if (result.status !== 0) throw new Error(`baton hook ${event} failed: ${result.stderr}`);
    return result.stdout;
  };
  hook("pre-tool-use", {
    hook_event_name: "PreToolUse",
    tool_name: "Agent",
    tool_input: {
      prompt,
      subagent_type: agentType,
      run_in_background: false,
    },
    tool_use_id: "toolu_agent",
  });
  hook("subagent-start", { hook_event_name: "SubagentStart", agent_id: agentId, agent_type: agentType });
  write();
  hook("post-tool-use", {
    hook_event_name: "PostToolUse",
    // A Bash call (files it does not name): every change in the open task folders is this call's.
    tool_name: "Bash",
    tool_input: { command: "write the report, then the metadata" },
    tool_use_id: "toolu_write",
    agent_id: agentId,
    agent_type: agentType,
  });
  hook("subagent-stop", {
    hook_event_name: "SubagentStop",
    agent_id: agentId,
    agent_type: agentType,
    stop_hook_active: false,
    last_assistant_message: options.lastMessage ?? "Done: the report and the metadata are written.",
  });
}

function spawnSyncInput(cwd: string, args: string[], input: string): CliResult {
  const result = spawnSync(process.execPath, [BATON_BIN, ...args], { cwd, input, encoding: "utf8" });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A repository with `n` committed tasks ("Task number 1" …) and a scripted agent in .git/ (outside git status). */
export function tasksWithScript(n: number, script: unknown): { dir: string; script: string } {
  const dir = builtOnce(JSON.stringify(["tasks", n]), (built) => {
    for (let i = 1; i <= n; i++) ok(built, ["task", "add", `Task number ${i}`]);
    commitAll(built, "tasks");
  });
  const path = join(dir, ".git", "agent-script.json");
  writeFileSync(path, JSON.stringify(script));
  return { dir, script: path };
}

/**
 * Task 1 "Build the parser" (general), forced to planned, with a task-style plan of `phases` committed
 * at specs/1_build_the_parser/plans/implementation-001.md; `config` becomes baton.config.json.
 */
export function plannedTaskRepo(phases: PlanPhaseSpec[], config?: object): string {
  return builtOnce(JSON.stringify(["planned", phases, config ?? null]), (dir) => {
    if (config) writeFileSync(join(dir, "baton.config.json"), JSON.stringify(config));
    ok(dir, ["task", "add", "Build the parser", "-l", "general"]);
    ok(dir, ["task", "status", "1", "planned", "--force"]);
    const plans = join(dir, "specs/1_build_the_parser/plans");
    mkdirSync(plans, { recursive: true });
    writeFileSync(
      join(plans, "implementation-001.md"),
      generatePlan({ style: "task", taskNumber: 1, title: "Build the parser", phases }),
    );
    commitAll(dir, "planned");
  });
}
