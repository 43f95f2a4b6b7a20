// Cost of Baton's Claude Code hooks, which run on every tool call: `baton hook <event>` as a command
// hook against bare `node -e 0`, the original bash SubagentStop hook on the same input, and the
// resident paths: the bash forwarder to `baton serve` (and its in-process fallback), and HTTP hooks.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BIN,
  DIST_GENERATOR,
  machine,
  median,
  numberFlag,
  percentile,
  QUICK,
  ROOT,
  table,
  tempDir,
} from "./common.mjs";

const RUNS = numberFlag("runs", QUICK ? 15 : 40);
const REQUESTS = numberFlag("requests", QUICK ? 500 : 2000);
// A resident server is warm after its first few hundred calls (the JIT); a session makes that many quickly.
const HTTP_WARMUP = 300;
const WARMUP = 3;
const TARGET_RATIO = 1.3;
const TARGET_HTTP_MS = 2;
const FIXTURE = join(ROOT, "..", "shared", "fixtures", "proofchecker");
const BASH_HOOK = join(".claude", "hooks", "subagent-postflight.sh");

console.log(`# Hooks: median of ${RUNS} runs (after ${WARMUP} warm-up), HTTP over ${REQUESTS} requests`);
console.log(`machine: ${machine()}\n`);

const repo = tempDir("hooks");
let failed = 0;
let server;
let resident;
try {
  // A repository with specs, one task delegated in session mode (checkpoint + postflight marker).
  const { generateRepo } = await import(DIST_GENERATOR);
  const generated = generateRepo({ dir: repo.dir, active: 50, archived: 50, folders: false, seed: 3 });
  execFileSync("git", ["init", "-q"], { cwd: repo.dir });
  const task = generated.activeNumbers[0];
  const claudeSession = "0f4c2a4e-bench-4c1e-9d7a-000000000001";
  // As a user has it: a fresh `baton init` (its default hooks), then an in-session gate-in, which seals the
  // store and opens the checkpoint and its postflight marker.
  const baton = (args, extraEnv = {}) =>
    execFileSync(process.execPath, [BIN, ...args], {
      cwd: repo.dir,
      encoding: "utf8",
      env: { ...process.env, ...extraEnv },
    });
  // HTTP hooks on the repository's own port, measured beside the forwarder that a fresh init (Claude Code's
  // sandbox on) installs: HTTP hooks reach Baton only where that sandbox is off.
  baton(["init", "--bin", `node ${BIN}`, "--hooks", "http", "--host-sandbox", "off"]);
  const installed = JSON.parse(readFileSync(join(repo.dir, ".baton", "init.json"), "utf8"));
  baton(["gate-in", "research", String(task)], { CLAUDE_CODE_SESSION_ID: claudeSession });
  const folderName = readdirSync(join(repo.dir, "specs")).find((n) => n.startsWith(`${task}_`));
  const folder = join(repo.dir, "specs", folderName);
  const marker = join(folder, ".baton-postflight-pending");
  const guard = join(folder, ".baton-postflight-loop-guard");
  // The original system's hook reads its own marker name: the same delegation, as it would have written it.
  const legacyMarker = join(folder, ".postflight-pending");
  const legacyGuard = join(folder, ".postflight-loop-guard");
  const markerText = readFileSync(marker, "utf8");
  const resetMarker = () => {
    writeFileSync(marker, markerText);
    writeFileSync(legacyMarker, markerText);
    rmSync(guard, { force: true });
    rmSync(legacyGuard, { force: true });
  };
  resetMarker();

  const common = { session_id: claudeSession, transcript_path: "/dev/null", cwd: repo.dir };
  const preToolUse = JSON.stringify({
    ...common,
    permission_mode: "default",
    effort: { level: "medium" },
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: 'grep -n "Status" specs/TODO.md | head -20', description: "List statuses" },
    tool_use_id: "toolu_bench_1",
  });
  // After a Bash call, with the checkpoint open: provenance looks at the open task folder.
  const postToolUse = JSON.stringify({
    ...JSON.parse(preToolUse),
    hook_event_name: "PostToolUse",
    tool_response: { stdout: "12:- **Status**: [RESEARCHING]", stderr: "", interrupted: false },
  });
  const subagentStop = JSON.stringify({
    ...common,
    permission_mode: "default",
    agent_id: "a6205a5694fec682",
    agent_type: "researcher",
    effort: { level: "medium" },
    hook_event_name: "SubagentStop",
    stop_hook_active: false,
    agent_transcript_path: "/dev/null",
    last_assistant_message: "RESEARCH DONE",
    background_tasks: [],
    session_crons: [],
  });

  // 1 MB commands: a script passed to an interpreter (the common big command) and the lexer's worst case,
  // a quarter million words and redirections. The decision must grow linearly with the input.
  const bigCommand = (command) => JSON.stringify({ ...JSON.parse(preToolUse), tool_input: { command } });
  const MB = 1_000_000;
  const script = `python3 -c "${"print(open('notes.txt').read()) # state.json stays untouched\n".repeat(MB / 60)}"`;
  const words = `echo specs/state.json ${"> /tmp/out ".repeat(MB / 22)}${"word ".repeat(MB / 10)}`;
  const env = { ...process.env, CLAUDE_PROJECT_DIR: repo.dir };
  // The resident path: bin/baton-hook forwards to this repository's `baton serve`; with a port file that
  // names a closed port it falls back to the in-process hook (the server-down case).
  const FORWARDER = join(ROOT, "bin", "baton-hook");
  const portFile = join(repo.dir, ".baton", "serve.port");
  const deadPortFile = join(repo.dir, ".baton", "dead.port");
  mkdirSync(join(repo.dir, ".baton"), { recursive: true });
  writeFileSync(deadPortFile, "1\n");
  resident = spawn(process.execPath, [BIN, "serve", "--port", "0", "--port-file", portFile], {
    cwd: repo.dir,
    stdio: "ignore",
  });
  for (let i = 0; i < 100 && !existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 50));
  const cases = [
    { name: "node -e 0 (bare)", cmd: process.execPath, args: ["-e", "0"], input: "" },
    {
      name: "baton hook pre-tool-use",
      cmd: process.execPath,
      args: [BIN, "hook", "pre-tool-use"],
      input: preToolUse,
    },
    {
      name: "baton hook post-tool-use",
      cmd: process.execPath,
      args: [BIN, "hook", "post-tool-use"],
      input: postToolUse,
    },
    // The floor of any command hook here: a bash start, which Claude Code pays before the forwarder's first line.
    { name: "bash -c : (bare)", cmd: "bash", args: ["-c", ":"], input: "" },
    { name: "forwarder → resident serve", cmd: FORWARDER, args: ["pre-tool-use"], input: preToolUse },
    { name: "forwarder → serve, post", cmd: FORWARDER, args: ["post-tool-use"], input: postToolUse },
    {
      name: "forwarder, server down",
      cmd: FORWARDER,
      args: ["pre-tool-use"],
      input: preToolUse,
      env: { BATON_SERVE_PORT_FILE: deadPortFile },
    },
    {
      name: "forwarder, server down, post",
      cmd: FORWARDER,
      args: ["post-tool-use"],
      input: postToolUse,
      env: { BATON_SERVE_PORT_FILE: deadPortFile },
    },
    {
      name: "pre-tool-use, 1 MB script",
      cmd: process.execPath,
      args: [BIN, "hook", "pre-tool-use"],
      input: bigCommand(script),
    },
    {
      name: "pre-tool-use, 1 MB of words",
      cmd: process.execPath,
      args: [BIN, "hook", "pre-tool-use"],
      input: bigCommand(words),
    },
    {
      name: "baton hook subagent-stop",
      cmd: process.execPath,
      args: [BIN, "hook", "subagent-stop"],
      input: subagentStop,
      before: resetMarker,
    },
  ];
  const hasFixture = existsSync(join(FIXTURE, BASH_HOOK));
  if (hasFixture) {
    // A copy, because the original hook writes logs and deletes markers where it runs.
    cpSync(join(FIXTURE, ".claude", "hooks"), join(repo.dir, ".claude", "hooks"), { recursive: true });
    cases.push({
      name: "original bash SubagentStop",
      cmd: "bash",
      args: [BASH_HOOK],
      input: subagentStop,
      before: resetMarker,
    });
  }

  const times = new Map(cases.map((c) => [c.name, []]));
  const outputs = new Map();
  for (let round = 0; round < WARMUP + RUNS; round++) {
    // Interleaved, so that a slow patch of the machine hits every case alike.
    for (const c of cases) {
      c.before?.();
      const start = process.hrtime.bigint();
      const result = spawnSync(c.cmd, c.args, {
        cwd: repo.dir,
        input: c.input,
        encoding: "utf8",
        env: { ...env, ...(c.env ?? {}) },
      });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (result.status !== 0) {
        failed++;
        console.log(
          `  FAILED (exit ${result.status}): ${c.name}: ${(result.stderr ?? "").trim().split("\n")[0]}`,
        );
      }
      if (round >= WARMUP) times.get(c.name).push(ms);
      outputs.set(c.name, (result.stdout ?? "").trim());
    }
  }

  const bare = median(times.get(cases[0].name));
  const rows = [["case", "median ms", "p90 ms", "x bare node", `target <= ${TARGET_RATIO}x`]];
  for (const c of cases) {
    const m = median(times.get(c.name));
    const ratio = m / bare;
    const verdict = c.name === "baton hook pre-tool-use" ? (ratio <= TARGET_RATIO ? "PASS" : "FAIL") : "";
    rows.push([
      c.name,
      m.toFixed(1),
      percentile(times.get(c.name), 90).toFixed(1),
      `${ratio.toFixed(2)}x`,
      verdict,
    ]);
  }
  console.log(table(rows));
  const small = median(times.get("baton hook pre-tool-use"));
  for (const name of ["pre-tool-use, 1 MB script", "pre-tool-use, 1 MB of words"]) {
    const beyond = median(times.get(name)) - small;
    console.log(
      `${name}: ${beyond.toFixed(1)} ms beyond a small command (target < 100 ms: ${beyond < 100 ? "PASS" : "FAIL"})`,
    );
  }
  if (!hasFixture) console.log(`\n(original bash hook skipped: ${join(FIXTURE, BASH_HOOK)} is absent)`);
  console.log("\nReplies (last run):");
  for (const c of cases.slice(1)) console.log(`  ${c.name}: ${outputs.get(c.name).slice(0, 150)}`);

  // The default path of a fresh `baton init`: Claude Code's SessionStart hook starts this repository's
  // server on its own port; then every tool call is two POSTs on a kept-alive connection.
  const sessionStart = JSON.stringify({ ...common, hook_event_name: "SessionStart", source: "startup" });
  execFileSync(process.execPath, [BIN, "hook", "session-start", "--port", String(installed.port)], {
    cwd: repo.dir,
    input: sessionStart,
    env,
  });
  const url = `http://127.0.0.1:${installed.port}`;
  server = (await (await fetch(`${url}/health`)).json()).pid;
  // Claude Code's http hooks: one POST per event on a kept-alive connection, as the binary sends them.
  const post = async (event, body) => {
    const start = process.hrtime.bigint();
    const response = await fetch(`${url}/hooks/${event}`, { method: "POST", body });
    await response.json();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const httpPre = [];
  const httpPost = [];
  for (let i = 0; i < REQUESTS + HTTP_WARMUP; i++) {
    const pre = await post("pre-tool-use", preToolUse);
    const after = await post("post-tool-use", postToolUse);
    if (i >= HTTP_WARMUP) {
      httpPre.push(pre);
      httpPost.push(after);
    }
  }
  // A tool call pays PreToolUse and PostToolUse; each path's figure is the sum of its two medians.
  const perCall = (pre, after) => median(times.get(pre)) + median(times.get(after));
  const httpCall = median(httpPre) + median(httpPost);
  const callRows = [
    ["path (per tool call: PreToolUse + PostToolUse)", "median ms", "when its server is down"],
    [
      "command hooks (baton hook <event>)",
      perCall("baton hook pre-tool-use", "baton hook post-tool-use").toFixed(1),
      "-",
    ],
    [
      "fresh baton init, sandbox on: bin/baton-hook → baton serve",
      perCall("forwarder → resident serve", "forwarder → serve, post").toFixed(1),
      `${perCall("forwarder, server down", "forwarder, server down, post").toFixed(1)} ms, decided in-process`,
    ],
    ["node -e 0 (bare, one process)", median(times.get(cases[0].name)).toFixed(1), "-"],
    [
      "bash -c : (bare, one process per hook, two per call)",
      (2 * median(times.get("bash -c : (bare)"))).toFixed(1),
      "-",
    ],
    [
      `--host-sandbox off: http hooks, port ${installed.port}`,
      httpCall.toFixed(2),
      "the tool call is blocked",
    ],
  ];
  console.log(`\n${table(callRows)}`);
  const forwarded = perCall("forwarder → resident serve", "forwarder → serve, post");
  console.log(
    `fresh baton init (sandbox on, the forwarder), per tool call: ${forwarded.toFixed(2)} ms (target median <= ${TARGET_HTTP_MS} ms: ${forwarded <= TARGET_HTTP_MS ? "PASS" : "FAIL"}; ${(forwarded / (2 * median(times.get("bash -c : (bare)")))).toFixed(2)}x two bare bash starts, the floor of a command hook)`,
  );
  console.log(
    `--host-sandbox off (http hooks), per tool call: ${httpCall.toFixed(2)} ms (target median <= ${TARGET_HTTP_MS} ms: ${httpCall <= TARGET_HTTP_MS ? "PASS" : "FAIL"});` +
      ` ${(perCall("baton hook pre-tool-use", "baton hook post-tool-use") / httpCall).toFixed(0)}x faster than command hooks;` +
      ` PreToolUse p95 ${percentile(httpPre, 95).toFixed(2)} ms, PostToolUse p95 ${percentile(httpPost, 95).toFixed(2)} ms`,
  );
  console.log("PASS/FAIL is informational; the benchmark exits non-zero only when a hook fails to run.");
} catch (error) {
  failed++;
  console.log(`hooks benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (server) process.kill(server, "SIGTERM");
  if (resident && resident.exitCode === null) resident.kill("SIGTERM");
  repo.cleanup();
}
process.exitCode = failed > 0 ? 1 : 0;
