// Runs Baton over every version of a repository's task store in its git history:
//   npm run compat:history -- <git dir or clone> [--limit N] [--every K] [--json FILE]
// For each commit that changed specs/state.json or specs/TODO.md, the two files as they were are put in
// a scratch repository and Baton must: list every task of state.json, run doctor without a crash, and add
// a task without changing any other task's entry in either file. Failures are grouped by kind; the exit
// code is 1 when any version failed. The mirror is only read (git cat-file), never written.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = resolve(process.env.COMPAT_DIST ?? join(ROOT, "dist"));
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const positional = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
const source = positional[0] && resolve(process.env.INIT_CWD ?? process.cwd(), positional[0]);
if (!source || !existsSync(source)) {
  console.error(`compat:history: ${source ? `${source} does not exist` : "no repository given"}`);
  console.error("usage: npm run compat:history -- <git dir or clone> [--limit N] [--every K] [--json FILE]");
  process.exit(2);
}
if (!existsSync(join(DIST, "index.js"))) {
  console.error(`compat:history: ${DIST}/index.js is missing; run \`npm run build\``);
  process.exit(2);
}
const lib = await import(pathToFileURL(join(DIST, "index.js")).href);
const STATE = "specs/state.json";
const TODO = "specs/TODO.md";

function git(...gitArgs) {
  return execFileSync("git", ["--git-dir", gitDir(source), ...gitArgs], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
}

function gitDir(path) {
  return existsSync(join(path, ".git")) ? join(path, ".git") : path;
}

/** Every version of the two files, oldest first, read through one `git cat-file --batch`. */
async function versions() {
  const log = git("log", "--format=%H %cs", "--reverse", "--", STATE, TODO)
    .trim()
    .split("\n")
    .filter(Boolean);
  const every = Number(option("--every") ?? 1);
  const limit = Number(option("--limit") ?? Number.POSITIVE_INFINITY);
  const picked = log.filter((_, i) => i % every === 0 || i === log.length - 1).slice(-limit);
  const requests = picked.flatMap((row) => {
    const commit = row.split(" ")[0];
    return [`${commit}:${STATE}`, `${commit}:${TODO}`];
  });
  const blobs = await catFile(requests);
  return picked.map((row, i) => {
    const [commit, date] = row.split(" ");
    return { commit, date, state: blobs[2 * i], todo: blobs[2 * i + 1] };
  });
}

function catFile(requests) {
  return new Promise((done, fail) => {
    const child = spawn("git", ["--git-dir", gitDir(source), "cat-file", "--batch"]);
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.on("error", fail);
    child.on("close", () => {
      const all = Buffer.concat(chunks);
      const out = [];
      let at = 0;
      for (let n = 0; n < requests.length; n++) {
        const nl = all.indexOf(10, at);
        const header = all.subarray(at, nl).toString();
        at = nl + 1;
        if (header.endsWith(" missing")) {
          out.push(null);
          continue;
        }
        const size = Number(header.split(" ")[2]);
        out.push(all.subarray(at, at + size).toString("utf8"));
        at += size + 1;
      }
      done(out);
    });
    child.stdin.end(`${requests.join("\n")}\n`);
  });
}

/** The task numbers of state.json as a reader independent of Baton sees them. */
function expectedNumbers(stateText) {
  let value;
  try {
    value = JSON.parse(stateText);
  } catch {
    return null;
  }
  const list = Array.isArray(value?.active_projects) ? value.active_projects : [];
  const numbers = list.map((t) => Number(t?.project_number)).filter((n) => Number.isInteger(n) && n >= 0);
  return [...new Set(numbers)];
}

/** Each entry's bytes in both files, keyed by task number, to prove an add touched no other task. */
function entrySnapshot(stateText, todoText) {
  const byNumber = new Map();
  try {
    for (const t of JSON.parse(stateText).active_projects ?? []) {
      const key = String(t?.project_number);
      byNumber.set(key, [...(byNumber.get(key) ?? []), JSON.stringify(t)]);
    }
  } catch {}
  const todo = new Map();
  const parts = (todoText ?? "").split(/^(?=### \d+\.)/m);
  for (const part of parts) {
    const n = /^### (\d+)\./.exec(part)?.[1];
    if (n) todo.set(n, [...(todo.get(n) ?? []), part.replace(/\s+$/, "")]);
  }
  return { state: byNumber, todo };
}

function otherEntriesChanged(before, after, added) {
  const changed = [];
  for (const kind of ["state", "todo"]) {
    for (const [n, texts] of before[kind]) {
      if (n === String(added)) continue;
      if (!isDeepStrictEqual(texts, after[kind].get(n))) changed.push(`${kind}:${n}`);
    }
  }
  return changed;
}

const scratch = mkdtempSync(join(tmpdir(), "baton-history-"));
execFileSync("git", ["init", "-q", scratch]);

/** Versions whose committed state.json is not JSON: Baton's STATE_PARSE names file and line, no failure. */
let brokenJson = 0;
function parsesAsJson(text) {
  try {
    JSON.parse(text ?? "");
    return true;
  } catch {
    return false;
  }
}

/** Irregularity codes Baton read around in this version (reported per kind, not as failures). */
let irregularKinds = new Set();

async function checkVersion(version) {
  irregularKinds = new Set();
  const specs = join(scratch, "specs");
  rmSync(specs, { recursive: true, force: true });
  rmSync(join(scratch, ".baton"), { recursive: true, force: true });
  mkdirSync(specs, { recursive: true });
  if (version.state !== null) writeFileSync(join(scratch, STATE), version.state);
  if (version.todo !== null) writeFileSync(join(scratch, TODO), version.todo);
  const failures = [];
  const ctx = lib.storeContext(await lib.loadConfig(scratch));
  const expected = version.state === null ? [] : expectedNumbers(version.state);
  try {
    const snapshot = await lib.readSettledStore(ctx);
    for (const found of [...snapshot.state.irregular, ...snapshot.todo.irregular])
      irregularKinds.add(found.code);
    const listed = new Set(lib.taskViews(snapshot).map((v) => v.number));
    const missing = (expected ?? []).filter((n) => !listed.has(n));
    if (missing.length > 0)
      failures.push(["list: tasks missing", `${missing.length} missing: ${missing.slice(0, 5)}`]);
  } catch (error) {
    // A version whose state.json is not JSON at all (a bad merge committed) is refused by name, as it must be.
    if (error.code === "STATE_PARSE" && !parsesAsJson(version.state)) brokenJson++;
    else failures.push([`list: ${error.code ?? "crash"}`, firstLine(error)]);
  }
  try {
    lib.runDoctorChecks(ctx);
  } catch (error) {
    failures.push([`doctor: ${error.code ?? "crash"}`, firstLine(error)]);
  }
  await checkAdd(ctx, version, failures);
  return failures;
}

async function checkAdd(ctx, version, failures) {
  if (expectedNumbers(version.state ?? "{}") === null) return;
  const before = entrySnapshot(version.state, version.todo);
  try {
    const task = await lib.mutateStore(ctx, { command: "compat:history add" }, (tx) =>
      lib.addTask(tx, { title: "History compat task" }),
    );
    const after = entrySnapshot(
      readFileSync(join(scratch, STATE), "utf8"),
      existsSync(join(scratch, TODO)) ? readFileSync(join(scratch, TODO), "utf8") : "",
    );
    const changed = otherEntriesChanged(before, after, task.project_number);
    if (changed.length > 0) failures.push(["add: other tasks changed", changed.slice(0, 5).join(", ")]);
  } catch (error) {
    failures.push([`add: ${error.code ?? "crash"}`, firstLine(error)]);
  }
}

function firstLine(error) {
  return String(error?.message ?? error)
    .split("\n")[0]
    .replace(scratch, "")
    .slice(0, 200);
}

const all = await versions();
const byKind = new Map();
const irregularCounts = new Map();
let failed = 0;
const started = Date.now();
for (const [i, version] of all.entries()) {
  const failures = await checkVersion(version);
  if (failures.length > 0) failed++;
  for (const code of irregularKinds) irregularCounts.set(code, (irregularCounts.get(code) ?? 0) + 1);
  for (const [kind, detail] of failures) {
    const group = byKind.get(kind) ?? { count: 0, examples: [] };
    group.count++;
    if (group.examples.length < 3)
      group.examples.push(`${version.commit.slice(0, 10)} ${version.date}: ${detail}`);
    byKind.set(kind, group);
  }
  if (process.stderr.isTTY && i % 50 === 0) process.stderr.write(`\r${i + 1}/${all.length}`);
}
if (process.stderr.isTTY) process.stderr.write("\r");
rmSync(scratch, { recursive: true, force: true });
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(
  `${source}: ${all.length} versions, ${all.length - failed} read fully, ${failed} failed (${seconds} s)`,
);
for (const [kind, group] of [...byKind].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`  ${kind}: ${group.count}`);
  for (const example of group.examples) console.log(`      ${example}`);
}
if (brokenJson > 0)
  console.log(
    `  refused by name: ${brokenJson} version(s) whose state.json is not JSON (STATE_PARSE, file:line)`,
  );
if (irregularCounts.size > 0) {
  const kinds = [...irregularCounts].map(([code, n]) => `${code} in ${n}`).join(", ");
  console.log(`  read around (irregular entries, versions): ${kinds}`);
}
// Every version of every plan file: read with the phases its headings name (scripts/compat/plan-history.mjs).
const { checkPlanHistory } = await import("./compat/plan-history.mjs");
const plans = await checkPlanHistory(lib, gitDir(source));
console.log(
  `  plans: ${plans.plans} versions, ${plans.phases} phases read, ${plans.short.length} read short, ${plans.phantom.length} with a phantom phase, ${plans.unreadable} refused by name (PLAN_UNREADABLE)`,
);
for (const example of [...plans.short, ...plans.phantom].slice(0, 5)) console.log(`      ${example}`);
if (plans.short.length + plans.phantom.length > 0) failed++;
// baton verify on the repository as it is: its real history judged from Baton's adoption point on.
if (!existsSync(join(source, ".git")))
  console.log("  verify: skipped (a bare git folder: give a clone to check its history)");
else {
  const run = spawnSync(process.execPath, [join(DIST, "cli", "main.js"), "verify", "--json"], {
    cwd: source,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  let report = null;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    // reported below
  }
  const phantoms = report?.phantoms?.length ?? null;
  console.log(
    report === null
      ? `  verify: no report (exit ${run.status}): ${run.stderr.split("\n")[0]}`
      : `  verify: exit ${run.status}, ${phantoms} phantom(s), ${report.verified?.length ?? 0} verified, ${report.beforeAdoption?.length ?? 0} before adoption`,
  );
  if (run.status !== 0 || phantoms !== 0) failed++;
}
// A task of each of the repository's own types through research → plan → implement (scripted agents).
if (existsSync(join(source, ".git")) && existsSync(join(source, STATE))) {
  const { checkLifecycle } = await import("./compat/lifecycle.mjs");
  for (const result of await checkLifecycle(DIST, source)) {
    console.log(
      `  lifecycle: ${result.type} (task ${result.task ?? "-"}): ${result.ran?.join(" → ") ?? ""} ${result.error ? `FAILED: ${result.error}` : "ok, HEAD's store equal to the work tree's"}`,
    );
    if (result.error) failed++;
  }
}
const jsonOut = option("--json");
if (jsonOut)
  writeFileSync(
    jsonOut,
    `${JSON.stringify({ versions: all.length, failed, kinds: Object.fromEntries(byKind), irregular: Object.fromEntries(irregularCounts) }, null, 2)}\n`,
  );
process.exit(failed > 0 ? 1 : 0);
