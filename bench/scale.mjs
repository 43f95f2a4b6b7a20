// Start-to-exit time of real `baton` commands on a large repository, against bare `node -e 0`: a CLI
// that agents call hundreds of times per session must cost little more than starting node itself.
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import {
  BIN,
  DIST_GENERATOR,
  machine,
  median,
  numberFlag,
  percentile,
  QUICK,
  table,
  tempDir,
} from "./common.mjs";

const SIZE = QUICK
  ? { active: 1000, archived: 1000, runs: 5, warmup: 1 }
  : { active: 10000, archived: 10000, runs: 15, warmup: 2 };
// --active/--archived/--runs try other sizes, e.g. to find where a command crosses the target.
SIZE.active = numberFlag("active", SIZE.active);
SIZE.archived = numberFlag("archived", SIZE.archived);
SIZE.runs = numberFlag("runs", SIZE.runs);
const TARGET_RATIO = 3;

function timed(args, cwd) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, encoding: "utf8", maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return {
    ms,
    status: result.status ?? -1,
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? String(result.error),
  };
}

console.log(
  `# Scale: ${SIZE.active} active + ${SIZE.archived} archived tasks, median of ${SIZE.runs} runs after ${SIZE.warmup} warm-up`,
);
console.log(`machine: ${machine()}\n`);

const repo = tempDir("scale");
let failed = 0;
try {
  const { generateRepo } = await import(DIST_GENERATOR);
  const generated = generateRepo({
    dir: repo.dir,
    active: SIZE.active,
    archived: SIZE.archived,
    folders: false,
    seed: 11,
  });
  const specs = join(repo.dir, "specs");
  const mb = (p) => `${(statSync(join(specs, p)).size / 1e6).toFixed(1)} MB`;
  console.log(
    `  state.json ${mb("state.json")}, TODO.md ${mb("TODO.md")}, archive/state.json ${mb("archive/state.json")}`,
  );

  // A busy repository's event stream: a year of runs (20,000 agent runs with their operations and phases).
  const { appendFileSync, mkdirSync } = await import("node:fs");
  mkdirSync(join(repo.dir, ".baton", "events"), { recursive: true });
  const lines = [];
  for (let i = 0; i < 20_000; i++) {
    const task = generated.activeNumbers[i % generated.activeNumbers.length];
    const ts = new Date(Date.UTC(2026, 0, 1) + i * 1_500_000).toISOString();
    const base = { ts, session: `sess_${1_700_000_000 + i}_abcdef`, task, operation: "implement" };
    lines.push(JSON.stringify({ ...base, kind: "operation", outcome: "started" }));
    lines.push(JSON.stringify({ ...base, kind: "phase", phase: "1", outcome: "started" }));
    lines.push(
      JSON.stringify({ ...base, kind: "agent", phase: "1", costUsd: 0.02, tokensIn: 900, tokensOut: 200 }),
    );
    lines.push(JSON.stringify({ ...base, kind: "operation", outcome: i % 7 === 0 ? "failed" : "done" }));
  }
  appendFileSync(join(repo.dir, ".baton", "events", "events.jsonl"), `${lines.join("\n")}\n`);

  // activeNumbers[0] is generated as not_started; not_started <-> blocked is valid both ways.
  const statusTask = generated.activeNumbers[0];
  const showTask = generated.activeNumbers[Math.floor(generated.activeNumbers.length / 2)];
  let statusNow = "not_started";
  let added = 0;
  const commands = [
    { name: "node -e 0 (bare node)", args: () => ["-e", "0"], bare: true },
    {
      name: "baton task list",
      args: () => [BIN, "task", "list"],
      // A header plus one line per task; fewer means stdout was cut off before the process exited.
      complete: (stdout) => stdout.trimEnd().split("\n").length === 1 + SIZE.active + added,
    },
    { name: `baton task show ${showTask}`, args: () => [BIN, "task", "show", String(showTask)] },
    { name: "baton status", args: () => [BIN, "status"] },
    { name: "baton task add", args: () => [BIN, "task", "add", `Benchmark task number ${++added}`] },
    {
      name: `baton task status ${statusTask}`,
      args: () =>
        statusNow === "not_started"
          ? [BIN, "task", "status", String(statusTask), "blocked", "--reason", "benchmark"]
          : [BIN, "task", "status", String(statusTask), "not_started"],
      after: () => (statusNow = statusNow === "not_started" ? "blocked" : "not_started"),
    },
  ];
  const samples = new Map(commands.map((c) => [c.name, []]));
  const truncated = new Map(commands.map((c) => [c.name, 0]));

  // Round-robin, starting one command later each round, so load spikes and cache state on a noisy
  // machine fall on every command alike instead of on whichever ran in a burst.
  for (let round = 0; round < SIZE.warmup + SIZE.runs; round++) {
    for (let k = 0; k < commands.length; k++) {
      const command = commands[(round + k) % commands.length];
      const result = timed(command.args(), repo.dir);
      if (result.status !== 0) {
        failed++;
        console.log(
          `  FAILED (exit ${result.status}): ${command.name}: ${result.stderr.trim().split("\n")[0]}`,
        );
        continue;
      }
      command.after?.();
      if (command.complete && !command.complete(result.stdout))
        truncated.set(command.name, truncated.get(command.name) + 1);
      if (round >= SIZE.warmup) samples.get(command.name).push(result.ms);
    }
  }

  const bare = median(samples.get(commands[0].name));
  const rows = [["command", "median ms", "p90 ms", "x bare node", `target <= ${TARGET_RATIO}x`]];
  for (const command of commands) {
    const values = samples.get(command.name);
    if (values.length === 0) {
      rows.push([command.name, "-", "-", "-", "FAIL (no successful run)"]);
      continue;
    }
    const m = median(values);
    const ratio = m / bare;
    const cut = truncated.get(command.name);
    if (cut > 0) {
      console.log(
        `  WARNING: ${command.name} printed incomplete output in ${cut} of ${values.length + SIZE.warmup} runs`,
      );
    }
    rows.push([
      command.name,
      m.toFixed(0),
      percentile(values, 90).toFixed(0),
      command.bare ? "1.00" : ratio.toFixed(2),
      command.bare ? "" : `${ratio <= TARGET_RATIO ? "PASS" : "FAIL"}${cut > 0 ? " (output truncated)" : ""}`,
    ]);
  }
  console.log(`\n${table(rows)}\n`);
  console.log("PASS/FAIL is informational; the benchmark exits non-zero only when a baton command fails.");
} finally {
  repo.cleanup();
}
process.exitCode = failed > 0 ? 1 : 0;
