// Where the time of one `baton` command goes on a large repository. Each sample is a fresh node
// process doing ONE pass, because a CLI call always runs cold: a warm in-process loop would let the
// JIT hide the cost of zod and the TODO parser. Steps call the library's own functions in the order
// mutateStore/readStore call them; the "parts" rows split the big steps with the same primitives.
// Usage: node bench/breakdown.mjs [--quick]   (BATON_BENCH_KEEP=1 keeps the generated repo)
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DIST_GENERATOR, DIST_INDEX, machine, median, QUICK, ROOT, table, tempDir } from "./common.mjs";

const SIZE = QUICK
  ? { active: 1000, archived: 1000, samples: 3 }
  : { active: 10000, archived: 10000, samples: 7 };

async function step(times, name, fn) {
  const start = performance.now();
  const value = await fn();
  times.push([name, performance.now() - start]);
  return value;
}

/** One cold pass of `mode` inside this (child) process; prints [step, ms] pairs as JSON. */
async function child(mode, repo, number) {
  const times = [["node start-up until this script runs", performance.now()]];
  const lib = await step(times, "import library bundle (dist/index.js)", () => import(DIST_INDEX));
  const ctx = lib.storeContext(await step(times, "loadConfig", () => lib.loadConfig(repo)));
  const p = ctx.paths;
  if (mode === "parts") {
    // Named by primitive rather than by caller, so the rows stay meaningful as src/ changes.
    const validate = (list) => {
      for (const t of list) lib.TaskEntry.safeParse(t);
    };
    const text = await step(times, "state.json: readFileSync", () => readFileSync(p.state, "utf8"));
    const value = await step(times, "state.json: JSON.parse", () => JSON.parse(text));
    await step(times, "zod TaskEntry.safeParse x N (1st pass, cold)", () => validate(value.active_projects));
    const todoText = await step(times, "TODO.md: readFileSync", () => readFileSync(p.todo, "utf8"));
    const todo = await step(times, "TODO.md: parseTodo", () => lib.parseTodo(p.todo, todoText));
    const out = await step(times, "state.json: JSON.stringify", () => JSON.stringify(value, null, 2));
    await step(times, "compare rendered text with file text", () => `${out}\n` === text);
    await step(times, "zod TaskEntry.safeParse x N (2nd pass)", () => validate(value.active_projects));
    await step(times, "zod x N with { reportInput: true }", () => {
      for (const t of value.active_projects) lib.TaskEntry.safeParse(t, { reportInput: true });
    });
    await step(times, "TODO.md: renderTodo", () => lib.renderTodo(todo));
    const temp = join(p.dir, ".bench-part.tmp");
    await step(times, "write+fsync state.json-sized temp", () => lib.writeFileDurable(temp, `${out}\n`));
    await step(times, "write+fsync TODO.md-sized temp", () => lib.writeFileDurable(`${temp}2`, todoText));
    await step(times, "journal: writeFileAtomic + dir fsync", () =>
      lib.writeFileAtomic(`${temp}3`, JSON.stringify({ version: 1, writes: [] })),
    );
    await step(times, "rename x2 + dir fsync", () => {
      renameSync(temp, `${temp}4`);
      renameSync(`${temp}2`, `${temp}5`);
      lib.fsyncDirectory(p.dir);
    });
    for (const f of readdirSync(p.dir).filter((n) => n.startsWith(".bench-part"))) unlinkSync(join(p.dir, f));
    await step(times, "archive/state.json: loadArchive", () => lib.loadArchive(p));
  } else if (mode === "list" || mode === "show") {
    const state = await step(times, "loadState (read + parse + zod)", () => lib.loadState(p));
    const todo = await step(times, "loadTodo (read + parseTodo)", () => lib.loadTodo(p));
    if (mode === "list") {
      const views = await step(times, "taskViews", () => lib.taskViews({ state, todo }));
      const chunk = readdirSync(join(ROOT, "dist", "chunks")).find((f) => /^format-.*\.js$/.test(f));
      const { formatTaskList } = await import(pathToFileURL(join(ROOT, "dist", "chunks", chunk)).href);
      await step(times, "formatTaskList", () => formatTaskList(views));
    } else {
      await step(times, "find task + taskView", () => {
        const task = state.tasks.find((t) => t.project_number === number);
        return lib.taskView(task, lib.findEntry(todo, number), true);
      });
    }
  } else {
    const release = await step(times, "acquireLock", () =>
      lib.acquireLock(p.lock, { timeoutMs: 30_000, command: "breakdown" }),
    );
    await step(times, "recoverInterruptedCommit (readdir)", () =>
      lib.recoverInterruptedCommit(p.journal, [p.dir, p.archiveDir]),
    );
    const state = await step(times, "loadState (read + parse + zod)", () => lib.loadState(p));
    const todo = await step(times, "loadTodo (read + parseTodo)", () => lib.loadTodo(p));
    const tx = await step(
      times,
      "new Transaction (canonical-form check)",
      () => new lib.Transaction(ctx, state, todo),
    );
    await step(times, `mutation (${mode === "add" ? "addTask" : "changeStatus"})`, () => {
      if (mode === "add") return lib.addTask(tx, { title: "Breakdown task" });
      const target = lib.requireTask(tx, number).status === "blocked" ? "not_started" : "blocked";
      return lib.changeStatus(tx, number, target, { reason: "breakdown" });
    });
    const writes = await step(times, "tx.render (validate + stringify + renderTodo)", () => tx.render());
    await step(times, "commitFiles (temp writes, fsyncs, journal, renames)", () =>
      lib.commitFiles(p.journal, writes, tx.moves),
    );
    release();
  }
  times.push(["total inside the process", performance.now()]);
  process.stdout.write(JSON.stringify(times));
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4], Number(process.argv[5]));
} else {
  console.log(
    `# Breakdown: ${SIZE.active} active + ${SIZE.archived} archived tasks, median of ${SIZE.samples} cold runs`,
  );
  console.log(`machine: ${machine()}\n`);
  const repo = tempDir("breakdown");
  try {
    const { generateRepo } = await import(DIST_GENERATOR);
    const generated = generateRepo({
      dir: repo.dir,
      active: SIZE.active,
      archived: SIZE.archived,
      folders: false,
    });
    const number = generated.activeNumbers[0];
    for (const mode of ["list", "show", "status", "add", "parts"]) {
      const runs = [];
      for (let i = 0; i < SIZE.samples; i++) {
        const args = [import.meta.filename, "--child", mode, repo.dir, String(number)];
        const result = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 64 << 20 });
        if (result.status !== 0) throw new Error(`${mode} failed: ${result.stderr}`);
        runs.push(JSON.parse(result.stdout));
      }
      const rows = [[mode === "parts" ? "parts (cold primitives)" : `task ${mode}: step`, "median ms"]];
      for (const [i, [name]] of runs[0].entries()) {
        rows.push([name, median(runs.map((r) => r[i][1])).toFixed(1)]);
      }
      console.log(`${table(rows)}\n`);
    }
  } finally {
    repo.cleanup();
  }
}
