// `npm run demo`: a whole task lifecycle with the real CLI in a throwaway git repository.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const bin = resolve(import.meta.dirname, "../bin/baton.js");
const keep = process.argv.includes("--keep");
const dir = mkdtempSync(join(tmpdir(), "baton-demo-"));
const color = process.stdout.isTTY ? (code, text) => `\x1b[${code}m${text}\x1b[0m` : (_code, text) => text;

function step(title) {
  process.stdout.write(`\n${color("1;34", `== ${title}`)}\n`);
}

function baton(...args) {
  return batonWithInput(undefined, ...args);
}

function batonWithInput(input, ...args) {
  const shown = input === undefined ? "" : `echo '${input}' | `;
  process.stdout.write(`${color("2", "$")} ${color("1", `${shown}baton ${args.join(" ")}`)}\n`);
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: dir,
    input,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Demo",
      GIT_AUTHOR_EMAIL: "demo@example.com",
      GIT_COMMITTER_NAME: "Demo",
      GIT_COMMITTER_EMAIL: "demo@example.com",
    },
  });
  // Progress goes to stderr while a command runs, so it comes first; a refusal's message is yellow.
  if (result.stderr) process.stdout.write(color(result.status === 0 ? "2" : "33", result.stderr));
  process.stdout.write(result.stdout);
  return result;
}

function expectFailure(result) {
  if (result.status === 0) throw new Error("the demo expected this command to be refused");
}

function expectSuccess(result) {
  if (result.status !== 0) throw new Error(`demo step failed with exit code ${result.status}`);
}

function show(file) {
  process.stdout.write(`${color("2", `--- ${file}`)}\n${readFileSync(join(dir, file), "utf8")}`);
}

try {
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
  process.stdout.write(`Demo repository: ${dir}\n`);
  // Every agent runs in bubblewrap; a machine without it still sees the lifecycle, unsandboxed and saying so.
  if (spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "--", "true"]).status !== 0) {
    writeFileSync(join(dir, "baton.config.json"), `${JSON.stringify({ sandbox: "off" })}\n`);
    process.stdout.write(
      color(
        "33",
        "bubblewrap cannot run here (apt-get install bubblewrap): the demo's agents run unsandboxed\n",
      ),
    );
  }

  step("Create tasks: numbers, slugs and both files come from one write");
  expectSuccess(
    baton(
      "task",
      "add",
      "Fix the parser crash on empty input",
      "-p",
      "high",
      "-d",
      "The CLI crashes when the input file is empty.",
    ),
  );
  expectSuccess(baton("task", "add", "Prove the soundness theorem for Kripke frames", "-e", "6 hours"));
  expectSuccess(baton("task", "add", "Write the user guide", "--depends", "1", "-l", "markdown"));
  expectSuccess(baton("task", "list"));
  show("specs/TODO.md");

  step("Move through the lifecycle table; invalid moves are refused and write nothing");
  expectSuccess(baton("task", "status", "1", "blocked", "--reason", "waiting for the upstream fix"));
  expectSuccess(baton("task", "status", "1", "not_started"));
  expectFailure(baton("task", "status", "1", "completed"));
  expectFailure(baton("task", "status", "1", "researching"));
  expectSuccess(
    baton("task", "status", "1", "completed", "--force", "--reason", "fixed by hand in a hotfix"),
  );
  expectSuccess(baton("task", "show", "1"));

  step("Split a task; the parent completes itself when its subtasks are done");
  expectSuccess(
    baton(
      "task",
      "expand",
      "2",
      "-s",
      "Prove the canonical model lemma",
      "-s",
      "Assemble the soundness proof",
    ),
  );
  expectSuccess(baton("task", "status", "4", "completed", "--force", "--reason", "demo"));
  expectSuccess(baton("task", "abandon", "5", "--reason", "covered by task 4"));
  expectSuccess(baton("task", "list", "--status", "completed"));

  step("Bad input is an error naming file and line, and nothing is written");
  const todo = readFileSync(join(dir, "specs/TODO.md"), "utf8");
  writeFileSync(join(dir, "specs/TODO.md"), todo.replace("- **Status**: [NOT STARTED]\n", ""));
  expectFailure(baton("task", "add", "This task will not be created"));
  writeFileSync(join(dir, "specs/TODO.md"), todo);

  step("Drift made by hand is found and repaired by doctor");
  writeFileSync(join(dir, "specs/TODO.md"), todo.replace("[NOT STARTED]", "[PLANNED]"));
  mkdirSync(join(dir, "specs/42_forgotten_spike/reports"), { recursive: true });
  writeFileSync(join(dir, "specs/42_forgotten_spike/reports/research-001.md"), "# Spike\n");
  baton("doctor");
  expectSuccess(baton("doctor", "--fix"));

  step("Operations run through GATE IN → DELEGATE → GATE OUT → COMMIT (scripted agents, real processes)");
  const agents = resolve(import.meta.dirname, "demo-agents");
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "src/parser.ts"),
    'export function parse(tokens) {\n  return { type: "document", children: [tokens[0].kind] };\n}\n',
  );
  execFileSync("git", ["add", "-A"], { cwd: dir });
  execFileSync(
    "git",
    ["-c", "user.name=Demo", "-c", "user.email=demo@example.com", "commit", "-qm", "Demo project"],
    { cwd: dir },
  );
  const added = baton(
    "task",
    "add",
    "Guard the parser against empty input",
    "-l",
    "general",
    "-p",
    "high",
    "--json",
  );
  expectSuccess(added);
  const n = String(JSON.parse(added.stdout).number);
  expectSuccess(baton("research", n, "empty", "input", "--script", join(agents, "research.json")));
  step(
    "A planner that returns a stub is caught at GATE OUT: nothing is recorded or committed, the task stays retryable",
  );
  expectFailure(baton("plan", n, "--script", join(agents, "plan-stub.json")));
  expectSuccess(baton("errors", "--task", n));
  expectSuccess(baton("plan", n, "--script", join(agents, "plan.json")));
  step("implement runs the plan phase by phase: dependency waves, a hard barrier per phase, one commit each");
  expectSuccess(baton("plan", "show", n));
  expectSuccess(baton("implement", n, "--script", join(agents, "implement.json")));
  expectSuccess(baton("plan", "show", n));
  expectSuccess(baton("task", "show", n));
  process.stdout.write(`${color("2", "$")} ${color("1", "git log --format='%h %s' -6")}\n`);
  process.stdout.write(execFileSync("git", ["log", "--format=%h %s", "-6"], { cwd: dir, encoding: "utf8" }));

  step("See it all in one place: what runs, what ended, what was refused, what it cost");
  expectSuccess(baton("status"));

  step("Claude Code integration: init installs slash commands, agents and hooks; lint checks the tree");
  expectSuccess(baton("init", "--bin", `node ${bin}`));
  expectSuccess(baton("lint"));
  const write = (file, agent) =>
    JSON.stringify({
      session_id: "demo-session",
      transcript_path: "/dev/null",
      cwd: dir,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: join(dir, file), content: "{}" },
      tool_use_id: "toolu_demo",
      ...(agent ? { agent_id: "a1", agent_type: agent } : {}),
    });
  process.stdout.write(color("2", "# a sub-agent tries to write state.json itself; the hook denies it:\n"));
  expectSuccess(batonWithInput(write("specs/state.json", "baton-researcher"), "hook", "pre-tool-use"));
  process.stdout.write("\n");

  step("Archive finished work; the archive never loses an entry");
  expectSuccess(baton("archive", "--dry-run"));
  expectSuccess(baton("archive"));
  expectSuccess(baton("task", "recover", "5"));
  expectSuccess(baton("task", "list"));
  expectSuccess(baton("doctor"));
  process.stdout.write(
    `\n${color("1;32", "Demo finished: every step above ran the real CLI on real files.")}\n`,
  );
} finally {
  if (keep) process.stdout.write(`Kept ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
