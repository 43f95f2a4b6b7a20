import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { commitAll, generatedRepo, ok, repo } from "./helpers.js";

/** The full CLI, never the fast path: dist/cli/main.js runs the command table itself. */
const FULL_CLI = join(dirname(BATON_BIN), "..", "dist", "cli", "main.js");

function runEntry(entry: string, cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, [entry, ...args], { cwd, encoding: "utf8", maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function both(cwd: string, args: string[]) {
  return { fast: runEntry(BATON_BIN, cwd, args), full: runEntry(FULL_CLI, cwd, args) };
}

/** `task list`, `task show N` and `status` print the same bytes and exit the same whichever path answers. */
function expectSame(cwd: string, commands: string[][]) {
  for (const [index, args] of commands.entries()) {
    // The first command's fast path twice: the first may find no summary to answer from (the full CLI it hands
    // over to keeps one), the second reads it, as every later command's does. The full CLI reads the files
    // whatever the summary holds: once is its answer.
    const fast = Array.from({ length: index === 0 ? 2 : 1 }, () => runEntry(BATON_BIN, cwd, args));
    const full = runEntry(FULL_CLI, cwd, args);
    for (const [i, answer] of fast.entries()) {
      expect(answer, `baton ${args.join(" ")} (run ${i + 1})`).toEqual(full);
    }
  }
}

const COMMANDS = (n: number) => [
  ["task", "list"],
  ["task", "show", String(n)],
  ["task", "show", "99999"],
  ["status"],
];

// The first two tests make dozens of CLI calls, each twice: a loaded machine takes minutes, not a broken one.
describe("the fast read path answers exactly as the full CLI", () => {
  it("on a generated store, after writes, after a hand edit, and with a broken store summary", () => {
    const { dir, gen } = generatedRepo({ active: 40, archived: 5, naming: "mixed", folders: true });
    const n = gen.activeNumbers[3] as number;
    expectSame(dir, COMMANDS(n));
    ok(dir, ["task", "status", String(n), "blocked", "-r", "waiting"]);
    expectSame(dir, COMMANDS(n));
    const todo = join(dir, "specs", "TODO.md");
    writeFileSync(todo, readFileSync(todo, "utf8").replace(/\[BLOCKED\]/, "[PLANNED]"));
    commitAll(dir, "a hand edit");
    expectSame(dir, COMMANDS(n));
    // Costs by task, with ties: status names the top few in the order the full sort gives.
    const events = gen.activeNumbers.map((task: number, i: number) =>
      JSON.stringify({
        ts: `2026-11-0${1 + (i % 5)}T10:00:00.000Z`,
        session: `sess_17000000${String(i).padStart(2, "0")}_abcdef`,
        task,
        operation: "research",
        kind: "agent",
        costUsd: [0.5, 0.25, 0.5, 0.125][i % 4],
        tokensIn: 10,
        tokensOut: 5,
      }),
    );
    mkdirSync(join(dir, ".baton", "events"), { recursive: true });
    writeFileSync(join(dir, ".baton", "events", "events.jsonl"), `${events.join("\n")}\n`);
    expectSame(dir, [["status"]]);
    // A summary that does not parse is no summary: the files are read again.
    const summary = join(dir, "specs", ".baton", "cache", "store-summary.json");
    writeFileSync(summary, "{ not json");
    expectSame(dir, COMMANDS(n));
  }, 180_000);

  it("with irregular entries, a config file, an open checkpoint, no store, and ModelChecker's conventions", () => {
    const { dir, gen } = generatedRepo({ active: 8, archived: 0 });
    const n = gen.activeNumbers[0] as number;
    const state = join(dir, "specs", "state.json");
    const value = JSON.parse(readFileSync(state, "utf8"));
    value.active_projects[1].artifacts = { research: ["reports/01_x.md"] };
    value.active_projects[2].task_type = "python";
    delete value.active_projects[2].language;
    writeFileSync(state, `${JSON.stringify(value, null, 2)}\n`);
    commitAll(dir, "odd entries");
    expectSame(dir, COMMANDS(n));
    writeFileSync(join(dir, "baton.config.json"), '{ "taskTypeKey": "task_type" }\n');
    expectSame(dir, COMMANDS(n));
    mkdirSync(join(dir, "specs", ".baton", "checkpoints"), { recursive: true });
    expectSame(dir, COMMANDS(n));
    const empty = repo();
    expectSame(empty, COMMANDS(1));
    expect(both(empty, ["task", "list"]).fast.status).toBe(3);
  }, 180_000);
});

describe("the fast read path is really taken", () => {
  it("answers list, show and status of an unchanged store with the full CLI removed", () => {
    const { dir, gen } = generatedRepo({ active: 12, archived: 0 });
    const n = gen.activeNumbers[2] as number;
    // Baton keeps its summary where it keeps its files: in a store it has written to (reads create nothing).
    ok(dir, ["task", "add", "One written by Baton"]);
    ok(dir, ["task", "show", String(n)]);
    const expected = COMMANDS(n)
      .filter((c) => c[2] !== "99999")
      .map((args) => both(dir, args).full);
    // A copy of Baton without dist/cli/main.js: only the fast path can answer.
    const install = mkdtempSync(join(tmpdir(), "baton-fast-"));
    try {
      const root = join(dirname(BATON_BIN), "..");
      for (const part of ["bin", "dist", "package.json"])
        cpSync(join(root, part), join(install, part), { recursive: true });
      rmSync(join(install, "dist", "cli", "main.js"));
      const got = COMMANDS(n)
        .filter((c) => c[2] !== "99999")
        .map((args) => {
          const r = spawnSync(process.execPath, [join(install, "bin", "baton.js"), ...args], {
            cwd: dir,
            encoding: "utf8",
          });
          return { status: r.status, stdout: r.stdout, stderr: r.stderr };
        });
      expect(got).toEqual(expected);
    } finally {
      rmSync(install, { recursive: true, force: true });
    }
  });
});
