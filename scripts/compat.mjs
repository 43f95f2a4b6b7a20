// Compatibility check of Baton against a real repository of the original specs/ system:
//   npm run compat -- <folder> [--keep]
// Works on a git-initialised copy, so the folder itself is never written to.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import * as claudeTree from "./compat/claude-tree.mjs";
import * as expect from "./compat/expect.mjs";
import * as h from "./compat/lib.mjs";
import * as plans from "./compat/plans.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// COMPAT_DIST runs the same checks against another build (e.g. a patched one) without touching dist/.
const DIST = resolve(process.env.COMPAT_DIST ?? join(ROOT, "dist"));
const args = process.argv.slice(2);
const keep = args.includes("--keep");
const folderArg = args.find((a) => !a.startsWith("--"));
// npm runs scripts from the package root; a relative folder means relative to where the user typed it.
const source = folderArg && resolve(process.env.INIT_CWD ?? process.cwd(), folderArg);
const usageError = !source
  ? "no folder given"
  : !existsSync(source)
    ? `${source} does not exist`
    : !existsSync(join(source, "specs", "state.json"))
      ? `${source} has no specs/state.json`
      : !existsSync(join(DIST, "index.js")) && `${DIST}/index.js is missing; run \`npm run build\``;
if (usageError) {
  console.error(`compat: ${usageError}`);
  console.error(
    "usage: npm run compat -- <folder> [--keep]   (a repository with specs/state.json, e.g. a real fixture)",
  );
  process.exit(2);
}

const TITLE = "Compat check task";
const dir = mkdtempSync(join(tmpdir(), "baton-compat-"));
const specs = join(dir, "specs");
const cli = process.env.COMPAT_DIST ? join(DIST, "cli", "main.js") : join(ROOT, "bin", "baton.js");
const baton = h.makeBaton(dir, cli);
const lib = await import(pathToFileURL(join(DIST, "index.js")).href);
const { step, results } = h.makeSteps();
const archived = (a) => a.completed_projects ?? [];

const ctx = {
  initial: "", // first commit: what step 9 compares against
  head: "", // last checkpoint: what each step's diff is taken against
  orig: { state: null, archive: null },
  touched: new Map(), // task number → Map(key → the operation expected to write it)
  expectedFiles: new Set(["specs/state.json", "specs/TODO.md", "specs/archive/state.json"]),
  expectedMoves: [], // [from folder, archive folder] pairs, repository-relative
  newTask: null,
  doctorOrphans: 0, // entries doctor --fix added to the archive, for step 7's count
  notes: [],
};
const archiveMove = (folder) => [folder, `specs/archive/${folder.split("/").pop()}`];
const touch = (n, keys, why) => {
  const map = ctx.touched.get(n) ?? new Map();
  for (const k of keys) if (!map.has(k)) map.set(k, why);
  ctx.touched.set(n, map);
};
const move = (p, n, to, extra) => expect.statusMove({ baton, dir, touch }, p, n, to, extra);
const requireNewTask = () => {
  if (!ctx.newTask) throw new Error("not run: needs the task created in step 5");
  return ctx.newTask;
};

console.log(`compat: ${source}\ncompat: working copy ${dir}`);
if (process.env.COMPAT_DIST) console.log(`compat: build ${DIST}`);

await step(1, "copy + git init", () => {
  cpSync(source, dir, {
    recursive: true,
    filter: (p) => ![".git", "specs/.baton"].includes(relative(source, p)),
  });
  execFileSync("chmod", ["-R", "u+w", dir]); // the fixture is read-only; the copy must be writable
  h.git(dir, "init", "-q");
  ctx.initial = ctx.head = h.checkpoint(dir, "compat: original");
  ctx.orig = { state: h.readState(dir), archive: h.readArchive(dir) };
  const files = h.git(dir, "ls-files").split("\n").filter(Boolean);
  const inSpecs = files.filter((f) => f.startsWith("specs/")).length;
  return `${files.length} files committed (${inSpecs} under specs/) at ${ctx.initial.slice(0, 10)}`;
});

await step(2, "read (task list / task show)", () => {
  const p = h.problems();
  const numbers = ctx.orig.state.active_projects.map((t) => t.project_number);
  const listed = baton(["task", "list", "--json"]).map((v) => v.number);
  p.check(isDeepStrictEqual(listed, numbers), `task list gives [${listed}], state.json has [${numbers}]`);
  const todo = h.readTodo(dir);
  for (const task of ctx.orig.state.active_projects) {
    const n = task.project_number;
    let view;
    try {
      view = baton(["task", "show", String(n), "--json"]);
    } catch (error) {
      p.add(error.message);
      continue;
    }
    p.check(isDeepStrictEqual(view.raw, task), `task show ${n}: raw differs from the state.json entry`);
    p.check(view.status === task.status, `task show ${n}: status ${view.status}, state.json ${task.status}`);
    const entry = todo.entries.get(n);
    if (entry)
      p.check(view.title === entry.title, `task show ${n}: title "${view.title}" ≠ "${entry.title}"`);
    if (entry && entry.status !== task.status) {
      const marker = entry.status.toUpperCase().replace(/_/g, " ");
      ctx.notes.push(`task ${n}: state.json ${task.status}, TODO.md [${marker}] (original data)`);
    }
  }
  p.throwIfAny();
  return `${listed.length} tasks listed and shown; every raw entry equals state.json`;
});

await step("2b", "plans (parse, plan show)", async () => {
  const p = h.problems();
  const plan = plans.loadPlanModule(lib);
  const r = plans.checkPlans({ dir, baton, plan, state: ctx.orig.state, p, notes: ctx.notes });
  p.throwIfAny();
  const styles = Object.entries(r.styles)
    .map(([s, k]) => `${s} ${k}`)
    .join(", ");
  return (
    `${r.ok}/${r.plans} plans parse with waves (${styles}; via ${plan.from}): ${r.phases} phases ` +
    `(${r.carried} carried), ${r.warnings.length} warning(s); plan show prints phases and waves for ` +
    `${r.shown.join(", ") || "no active task"}` +
    r.warnings.map((w) => `\n      warning ${w}`).join("")
  );
});

await step(3, "round trip (no-op transactions)", async () => {
  const p = h.problems();
  const store = lib.storeContext(await lib.loadConfig(dir));
  const variants = [
    ["no-op", () => {}],
    ["no-op + tx.archive()", (tx) => void tx.archive()],
    ["no-op + tx.archive() + tx.errors()", (tx) => void [tx.archive(), tx.errors()]],
  ];
  for (const [label, mutate] of variants) {
    try {
      await lib.mutateStore(store, { command: `compat ${label}` }, mutate);
    } catch (error) {
      p.add(`${label} threw: ${error.message.split("\n")[0]}${h.explain(error.message)}`);
    }
    const dirty = h.git(dir, "status", "--porcelain", "--untracked-files=all", "--", "specs").trim();
    if (dirty) {
      const created = /^\?\?/m.test(dirty)
        ? " [BATON BUG: loading a missing file in a transaction creates it]"
        : "";
      p.add(`${label} changed files: ${dirty.replace(/\n/g, ", ")}${created}`);
      h.git(dir, "checkout", "-q", "--", "specs");
      h.git(dir, "clean", "-qfd", "--", "specs");
    }
  }
  p.throwIfAny();
  const files = ["state.json", "TODO.md", "archive/state.json", "errors.json"];
  const present = files.filter((f) => existsSync(join(specs, f)));
  return `${variants.length} transactions; ${present.join(", ")} byte-identical (git status clean)`;
});

await step(4, "doctor, doctor --fix", () => {
  const p = h.problems();
  const before = baton(["doctor", "--json"], { codes: [0, 1] });
  const summary = [
    `doctor: ${before.findings.length} findings: ${h.countBy(before.findings, (f) => f.code)}`,
  ];
  for (const f of before.findings)
    if (f.severity === "error") summary.push(`  error ${f.code}: ${f.message}`);
  const fix = baton(["doctor", "--fix", "--json"], { codes: [0, 1] });
  const deletes = fix.fixed.filter(
    (f) => f.path && ["STALE_MARKER", "LEFTOVER_RETURN_META"].includes(f.code),
  );
  for (const f of deletes) ctx.expectedFiles.add(relative(dir, f.path));
  for (const f of fix.fixed) {
    if (f.path && ["ORPHAN_FOLDER", "MISPLACED_FOLDER"].includes(f.code)) {
      ctx.expectedMoves.push(archiveMove(relative(dir, f.path)));
    }
    if (f.code === "ORPHAN_FOLDER") ctx.doctorOrphans++;
  }
  const left = fix.remaining.filter((f) => expect.SYNC_CODES.includes(f.code));
  p.check(left.length === 0, `still present after --fix: ${left.map((f) => f.message).join("; ")}`);
  const { added, removed } = h.diffLines(dir, ctx.head, "specs/TODO.md");
  const marker = (line) => /^- \*\*Status\*\*: \[[A-Z ]+\]/.test(line);
  const counter = (line) => /^next_project_number: \d+$/.test(line);
  for (const line of [...added, ...removed]) {
    if (!marker(line) && !counter(line)) p.add(`TODO.md line changed that is not a status marker: "${line}"`);
  }
  const todo = h.readTodo(dir);
  for (const t of h.readState(dir).active_projects) {
    const status = todo.entries.get(t.project_number)?.status;
    p.check(
      status === t.status,
      `task ${t.project_number}: TODO.md [${status}] still disagrees with state.json`,
    );
  }
  ctx.head = h.checkpoint(dir, "compat: doctor --fix");
  if (p.list.length > 0) p.add(summary.join("; "));
  p.throwIfAny();
  return (
    `fixed ${h.countBy(fix.fixed, (f) => f.code)}; remaining ${h.countBy(fix.remaining, (f) => f.code)}; ` +
    `TODO.md: ${removed.filter(marker).length} status marker(s) + ${removed.filter(counter).length} ` +
    `counter line(s) replaced, nothing else; ${deletes.length} control file(s) deleted` +
    summary.map((line) => `\n      ${line}`).join("")
  );
});

await step(5, "task add", async () => {
  const p = h.problems();
  const state = h.readState(dir);
  const oldNext = state.next_project_number;
  const { languages } = await lib.loadConfig(dir);
  const usable = state.active_projects.map((t) => t.language).filter((l) => languages.includes(l));
  const count = (l) => usable.filter((x) => x === l).length;
  const language = usable.sort((a, b) => count(b) - count(a))[0] ?? "general";
  const view = baton(["task", "add", TITLE, "-l", language, "--json"]);
  const n = view.number;
  ctx.newTask = { number: n, slug: view.slug };
  p.check(n === oldNext, `new task got ${n}, next_project_number was ${oldNext}`);
  const after = h.readState(dir);
  const todo = h.readTodo(dir);
  const stateNext = after.next_project_number;
  p.check(stateNext === n + 1, `state.json next_project_number is ${stateNext}, expected ${n + 1}`);
  p.check(todo.next === n + 1, `TODO.md next_project_number is ${todo.next}, expected ${n + 1}`);
  const task = after.active_projects.find((t) => t.project_number === n);
  p.check(task?.status === "not_started", `task ${n} is not in state.json as not_started`);
  p.check(todo.entries.get(n)?.status === "not_started", `TODO.md has no [NOT STARTED] entry ${n}`);
  const { added, removed } = h.diffLines(dir, ctx.head, "specs/TODO.md");
  // The frontmatter counter is a one-line replacement by design (the original's sed); all else must be insertion.
  const deleted = removed.filter((l) => l !== `next_project_number: ${oldNext}`);
  p.check(deleted.length === 0, `TODO.md lost lines: ${deleted.map((l) => `"${l}"`).join(", ")}`);
  p.check(added.includes(`### ${n}. ${TITLE}`), `TODO.md gained no "### ${n}. ${TITLE}" heading`);
  // An artifact folder, as an agent would leave one, so step 7 also checks that archiving moves it.
  mkdirSync(join(specs, `${n}_${view.slug}`, "reports"), { recursive: true });
  writeFileSync(join(specs, `${n}_${view.slug}`, "reports", "research-001.md"), "# Compat check\n");
  ctx.head = h.checkpoint(dir, "compat: task add");
  p.throwIfAny();
  return (
    `task ${n} (${language}); next_project_number ${oldNext} → ${n + 1} in both files; ` +
    `TODO.md diff: ${added.length - 1} line(s) inserted + counter`
  );
});

await step(6, "status moves", () => {
  const p = h.problems();
  const { number } = requireNewTask();
  const block = ["--reason", "compat: blocked"];
  const done = [`${number}: ${move(p, number, "blocked", block)}`, move(p, number, "not_started")];
  // An original task that can go to blocked and back by the table, and has no block reason of its own to lose.
  const table = lib.MANUAL_TRANSITIONS;
  const other = ctx.orig.state.active_projects.find(
    (t) => table.blocked.includes(t.status) && table[t.status]?.includes("blocked") && !t.blocked_reason,
  );
  if (other) {
    const n = other.project_number;
    done.push(`${n}: ${move(p, n, "blocked", block)}`, move(p, n, other.status));
    const stamp = expect.STATUS_STAMP[other.status];
    const now = h.readState(dir).active_projects.find((t) => t.project_number === n)?.[stamp];
    if (stamp && other[stamp] !== undefined && other[stamp] !== now) {
      ctx.notes.push(
        `task ${n}: back from blocked to ${other.status} rewrote "${stamp}" ${other[stamp]} → ${now}`,
      );
    }
  } else done.push("(no original task can go to blocked and back without --force)");
  ctx.head = h.checkpoint(dir, "compat: status moves");
  p.throwIfAny();
  return `${done.join(", ")}; marker and state agree after each, doctor reports no mismatch`;
});

await step(7, "archive", () => {
  const p = h.problems();
  const { number, slug } = requireNewTask();
  // The table's own path to completed, so no --force audit note is written.
  move(p, number, "blocked", ["--reason", "compat: waiting"]);
  move(p, number, "planned");
  move(p, number, "completed", ["--summary", "Compat check done"]);
  const result = baton(["archive", "--json"]);
  const mine = result.archived.find((a) => a.number === number);
  p.check(mine?.status === "completed", `task ${number} not archived as completed: ${JSON.stringify(mine)}`);
  for (const a of result.archived) {
    touch(a.number, expect.ARCHIVE_KEYS, "archive");
    if (a.folder) ctx.expectedMoves.push(archiveMove(a.folder));
  }
  for (const o of [...result.orphans, ...result.misplaced]) ctx.expectedMoves.push(archiveMove(o.folder));
  if (result.changeLogEntries > 0) ctx.expectedFiles.add("specs/CHANGE_LOG.md");
  if (result.roadMapItems > 0) ctx.expectedFiles.add("specs/ROAD_MAP.md");
  const entries = archived(h.readArchive(dir));
  const active = h.readState(dir).active_projects;
  p.check(!active.some((t) => t.project_number === number), `task ${number} is still active`);
  p.check(!h.readTodo(dir).entries.has(number), `TODO.md still has task ${number}`);
  const entry = entries.find((e) => e.project_number === number);
  p.check(
    entry?.status === "completed" && entry.source === "archival" && !!entry.archived,
    `archive entry of ${number}: ${JSON.stringify(entry)}`,
  );
  const folder = `${number}_${slug}`;
  p.check(existsSync(join(specs, "archive", folder, "reports")), `${folder} not moved into specs/archive/`);
  p.check(!existsSync(join(specs, folder)), `specs/${folder} still exists`);
  const lost = expect.lostArchiveEntries(archived(ctx.orig.archive), entries);
  for (const key of lost.slice(0, 5)) p.add(`archive entry lost: ${key}`);
  if (lost.length > 5) p.add(`… ${lost.length} archive entries lost in all`);
  const parts = [
    archived(ctx.orig.archive).length,
    ctx.doctorOrphans,
    result.archived.length,
    result.orphans.length,
  ];
  const expected = parts.reduce((a, b) => a + b);
  p.check(
    entries.length === expected,
    `archive has ${entries.length} entries, expected ${expected} = original + doctor orphans + archived + orphans (${parts})`,
  );
  for (const f of expect.syncFindings(baton)) p.add(`doctor ${f.code}: ${f.message}`);
  ctx.head = h.checkpoint(dir, "compat: archive");
  p.throwIfAny();
  const moved = result.archived.map((a) => `${a.number} (${a.folder ?? "no folder"})`).join(", ");
  return (
    `archived ${moved}; orphans ${result.orphans.length}, misplaced ${result.misplaced.length}; ` +
    `${entries.length} entries = ${parts[0]} original (none lost) + ${parts[1]} doctor orphans + ` +
    `${parts[2]} archived + ${parts[3]} orphans; CHANGE_LOG +${result.changeLogEntries}, ROAD_MAP +${result.roadMapItems}`
  );
});

await step(8, "field preservation", () => {
  const p = h.problems();
  const end = { state: h.readState(dir), archive: h.readArchive(dir) };
  const r = expect.fieldPreservation(p, ctx.orig, end, ctx.touched);
  p.throwIfAny();
  return (
    `${r.tasks} active + ${r.archived} archived tasks checked, ${r.fields} fields identical ` +
    `(incl. top-level keys); expected updates: ${r.updated.join(", ") || "none"}`
  );
});

await step(9, "nothing else changed", () => {
  const p = h.problems();
  const rows = h.changedPaths(dir, ctx.initial);
  // A folder moved into the archive may have got a "-2" suffix there (Baton never overwrites one).
  const moved = (path) =>
    ctx.expectedMoves.some(([from, to]) => path.startsWith(`${from}/`) || path.startsWith(to));
  for (const { status, path } of rows) {
    if (!path.startsWith("specs/")) p.add(`outside specs/: ${status} ${path}`);
    else if (!ctx.expectedFiles.has(path) && !moved(path)) p.add(`unexpected change: ${status} ${path}`);
  }
  p.throwIfAny();
  return `${rows.length} changed paths, all under specs/ and expected (${h.countBy(rows, (r) => r.status)})`;
});

await step(10, "Claude Code tree (lint, init, uninstall)", () =>
  claudeTree.checkClaudeTree({ dir, baton, bin: join(ROOT, "bin", "baton.js"), h, p: h.problems() }),
);

for (const note of ctx.notes) console.log(`NOTE ${note}`);
const failed = results.filter((ok) => !ok).length;
if (failed === 0 && !keep) rmSync(dir, { recursive: true, force: true });
else console.log(`compat: working copy kept at ${dir} (git log / git diff there)`);
console.log(`\ncompat: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
