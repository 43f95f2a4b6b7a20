// Helpers for scripts/compat.mjs: git, the baton CLI, an independent TODO.md reader, step reporting.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

// A fresh repository must commit regardless of the user's git setup (signing, hooks, identity).
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "baton-compat",
  GIT_AUTHOR_EMAIL: "compat@localhost",
  GIT_COMMITTER_NAME: "baton-compat",
  GIT_COMMITTER_EMAIL: "compat@localhost",
};
const GIT_FLAGS = ["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "core.quotepath=false"];

export function git(dir, ...args) {
  return execFileSync("git", [...GIT_FLAGS, ...args], {
    cwd: dir,
    env: GIT_ENV,
    encoding: "utf8",
    maxBuffer: 256 << 20,
  });
}

/** Commits everything so the next step's diff shows only that step; specs/ is forced in even if a .gitignore hides part of it. */
export function checkpoint(dir, message) {
  git(dir, "add", "-A");
  git(dir, "add", "-A", "-f", "--", "specs", ":(exclude)specs/.baton");
  git(dir, "commit", "-q", "--no-verify", "--allow-empty", "-m", message);
  return git(dir, "rev-parse", "HEAD").trim();
}

/** Changed lines of one file between a commit and the working tree (unified=0, so context never leaks in). */
export function diffLines(dir, from, file) {
  const out = git(dir, "diff", "--no-color", "--no-ext-diff", "-U0", from, "--", file);
  const added = [];
  const removed = [];
  let inHunk = false;
  for (const line of out.split("\n")) {
    if (line.startsWith("@@")) inHunk = true;
    else if (!inHunk) continue;
    else if (line.startsWith("+")) added.push(line.slice(1));
    else if (line.startsWith("-")) removed.push(line.slice(1));
  }
  return { added, removed };
}

/** Every path that differs from `from` (committed or not), renames split into delete + add. */
export function changedPaths(dir, from) {
  const rows = [];
  for (const line of git(dir, "diff", "--name-status", "--no-renames", from).split("\n")) {
    if (line.trim()) rows.push({ status: line[0], path: line.slice(line.indexOf("\t") + 1) });
  }
  for (const line of git(dir, "status", "--porcelain", "--untracked-files=all").split("\n")) {
    if (line.trim() && line.startsWith("??")) rows.push({ status: "?", path: line.slice(3) });
  }
  return rows;
}

export function makeBaton(dir, cliPath) {
  return function baton(args, { codes = [0] } = {}) {
    const run = spawnSync(process.execPath, [cliPath, "-C", dir, ...args], {
      cwd: dir,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    if (!codes.includes(run.status)) {
      const stderr = (run.stderr || "").trim().split("\n").slice(0, 3).join(" | ");
      throw new Error(`\`baton ${args.join(" ")}\` exited ${run.status}: ${stderr}${explain(stderr)}`);
    }
    if (!args.includes("--json")) return run.stdout;
    try {
      return JSON.parse(run.stdout);
    } catch {
      throw new Error(`\`baton ${args.join(" ")}\` printed invalid JSON: ${run.stdout.slice(0, 200)}`);
    }
  };
}

/** Points known Baton bugs out in the output, so a failure on one is recognised at once. */
let explained = false;
export function explain(message) {
  if (/Cannot find module '\.\/impl\//.test(message)) {
    if (explained) return " [the same Baton bug as above]";
    explained = true;
    return (
      ' [BATON BUG: dist/ bundles jsonc-parser\'s UMD build (esbuild picks its package.json "main"), whose' +
      " internal require('./impl/format') cannot resolve; the minimal-edit JSON writer (src/shared/json-edit.ts)" +
      " is dead in the built CLI, so any write of a hand-formatted JSON file fails]"
    );
  }
  return "";
}

export const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
export const readState = (dir) => readJson(join(dir, "specs", "state.json"));
/** The archive file, or {} when the repository has none yet. */
export const readArchive = (dir) =>
  existsSync(join(dir, "specs", "archive", "state.json"))
    ? readJson(join(dir, "specs", "archive", "state.json"))
    : {};

/**
 * TODO.md read without Baton's parser, so a parser bug cannot hide a disagreement: frontmatter
 * next_project_number and, per `### N.` entry, its title, first status marker and lines.
 */
export function readTodo(dir) {
  const lines = readFileSync(join(dir, "specs", "TODO.md"), "utf8").split(/\r?\n/);
  let next;
  let start = 0;
  if (lines[0] === "---") {
    start = lines.indexOf("---", 1) + 1;
    for (const line of lines.slice(1, start)) {
      const m = /^next_project_number:\s*(\d+)\s*$/.exec(line);
      if (m) next = Number(m[1]);
    }
  }
  const entries = new Map();
  let current = null;
  for (const line of lines.slice(start)) {
    const heading = /^### (\d+)\.\s+(.*?)\s*$/.exec(line);
    if (heading) {
      current = { title: heading[2], status: undefined, lines: [] };
      entries.set(Number(heading[1]), current);
      continue;
    }
    if (!current) continue;
    if (/^#{1,3} \S/.test(line)) current = null;
    else {
      current.lines.push(line);
      const marker = /^- \*\*Status\*\*:\s*\[([^\]]*)\]/.exec(line);
      if (marker && current.status === undefined)
        current.status = marker[1].trim().toLowerCase().replace(/ +/g, "_");
    }
  }
  return { next, entries };
}

/** Runs numbered checks; a check returns its detail or throws, and later checks still run. */
export function makeSteps() {
  const results = [];
  async function step(id, name, fn) {
    try {
      const detail = await fn();
      results.push(true);
      console.log(`PASS ${id}. ${name}: ${detail}`);
    } catch (error) {
      results.push(false);
      console.log(`FAIL ${id}. ${name}: ${error instanceof Error ? error.message : String(error)}`);
      if (process.env.COMPAT_DEBUG && error instanceof Error) console.log(error.stack);
    }
  }
  return { step, results };
}

/** Collects every problem of a check before failing it, so one run shows them all. */
export function problems() {
  const list = [];
  return {
    list,
    add: (message) => list.push(message),
    check(condition, message) {
      if (!condition) list.push(message);
      return condition;
    },
    throwIfAny() {
      if (list.length === 1) throw new Error(list[0]);
      if (list.length > 1)
        throw new Error(`${list.length} problems:\n${list.map((p) => `      - ${p}`).join("\n")}`);
    },
  };
}

/** The two values around their first difference, so a one-character change is visible in a long field. */
export function difference(a, b) {
  const [x, y] = [JSON.stringify(a) ?? "undefined", JSON.stringify(b) ?? "undefined"];
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  const around = (t) =>
    `${i > 20 ? "…" : ""}${t.slice(Math.max(0, i - 20), i + 40)}${t.length > i + 40 ? "…" : ""}`;
  return `${around(x)} → ${around(y)}`;
}

export function countBy(items, key) {
  const counts = new Map();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).join(", ") || "none";
}
