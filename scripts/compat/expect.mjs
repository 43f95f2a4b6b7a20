// What scripts/compat.mjs expects Baton's operations to do to a task, and the checks built on it.
import { isDeepStrictEqual } from "node:util";
import { difference, readState, readTodo } from "./lib.mjs";

// Keys each operation is expected to write on a task; every other original key must survive as it was:
//   task status F→T  status, last_updated, T's lifecycle stamp (researched|planned|completed|abandoned),
//                    blocked_reason when F or T is blocked, completion_summary with --summary
//   archive          archived, source, archive_folder (only when the destination needed a suffix)
//   doctor --fix     nothing on tasks (markers and the counter live in TODO.md); task add: only the new task
export const STATUS_STAMP = {
  researched: "researched",
  planned: "planned",
  completed: "completed",
  abandoned: "abandoned",
};
export const statusKeys = (from, to, summary) => [
  "status",
  "last_updated",
  ...(STATUS_STAMP[to] ? [STATUS_STAMP[to]] : []),
  ...(from === "blocked" || to === "blocked" ? ["blocked_reason"] : []),
  ...(to === "completed" && summary ? ["completion_summary"] : []),
];
export const ARCHIVE_KEYS = ["archived", "source", "archive_folder"];

/** Findings that mean state.json and TODO.md disagree; none may survive a Baton write. */
export const SYNC_CODES = [
  "STATUS_MISMATCH",
  "TODO_ENTRY_MISSING",
  "TODO_ENTRY_EXTRA",
  "NEXT_NUMBER_TAKEN",
  "NEXT_NUMBER_MISMATCH",
];

export const syncFindings = (baton) =>
  baton(["doctor", "--json"], { codes: [0, 1] }).findings.filter((f) => SYNC_CODES.includes(f.code));

/** One `baton task status` move, checked on both files and by doctor; records the keys it may write. */
export function statusMove({ baton, dir, touch }, p, n, to, extra = []) {
  const from = readState(dir).active_projects.find((t) => t.project_number === n)?.status;
  const change = baton(["task", "status", String(n), to, ...extra, "--json"]);
  p.check(
    change.from === from && change.to === to && !change.forced,
    `task ${n}: reported ${change.from} → ${change.to}${change.forced ? " (forced)" : ""}, expected ${from} → ${to}`,
  );
  const task = readState(dir).active_projects.find((t) => t.project_number === n);
  const entry = readTodo(dir).entries.get(n);
  p.check(task?.status === to, `task ${n}: state.json says ${task?.status} after → ${to}`);
  p.check(entry?.status === to, `task ${n}: TODO.md marker [${entry?.status}] after → ${to}`);
  if (to === "blocked") {
    const reason = extra[extra.indexOf("--reason") + 1];
    p.check(task?.blocked_reason === reason, `task ${n}: blocked_reason not recorded`);
    p.check(
      entry?.lines.includes(`- **Blocked on**: ${reason}`),
      `task ${n}: no "Blocked on" line in TODO.md`,
    );
  }
  if (from === "blocked") {
    p.check(task?.blocked_reason === undefined, `task ${n}: blocked_reason left after unblocking`);
  }
  for (const f of syncFindings(baton)) p.add(`after ${n} → ${to}: doctor ${f.code}: ${f.message}`);
  touch(n, statusKeys(from, to, extra.includes("--summary")), `status ${from} → ${to}`);
  return `${from}→${to}`;
}

/** Original archive entries missing at the end, compared as (number, name, status) multisets. */
export function lostArchiveEntries(original, now) {
  const key = (e) => `${e.project_number}|${e.project_name}|${e.status}`;
  const pool = new Map();
  for (const e of now) pool.set(key(e), (pool.get(key(e)) ?? 0) + 1);
  const lost = [];
  for (const e of original) {
    if ((pool.get(key(e)) ?? 0) > 0) pool.set(key(e), pool.get(key(e)) - 1);
    else lost.push(key(e));
  }
  return lost;
}

/**
 * Every key of every original task (active or archived) and of the top level, found again with the
 * same value unless an operation run on that task was expected to write it (`touched`).
 */
export function fieldPreservation(p, orig, end, touched) {
  const archived = (a) => a.completed_projects ?? [];
  let fields = 0;
  const updated = [];
  const compare = (label, before, after, allowed = new Map()) => {
    for (const [k, v] of Object.entries(before)) {
      if (allowed.has(k)) {
        if (!isDeepStrictEqual(after[k], v)) updated.push(`${label}.${k} (${allowed.get(k)})`);
        continue;
      }
      fields++;
      if (!(k in after)) p.add(`${label}: key "${k}" is gone`);
      else if (!isDeepStrictEqual(after[k], v)) p.add(`${label}: "${k}" changed: ${difference(v, after[k])}`);
    }
  };
  for (const t of orig.state.active_projects) {
    const n = t.project_number;
    const now =
      end.state.active_projects.find((x) => x.project_number === n) ??
      archived(end.archive).find((x) => x.project_number === n && x.source === "archival");
    if (!now) p.add(`task ${n}: neither active nor archived at the end`);
    else compare(`task ${n}`, t, now, touched.get(n));
  }
  // Matched whole first, so renumbered orphans and duplicate numbers pair with the right entry.
  const pool = [...archived(end.archive)];
  for (const e of archived(orig.archive)) {
    let i = pool.findIndex((x) => isDeepStrictEqual(x, e));
    if (i === -1) {
      i = pool.findIndex((x) => x.project_number === e.project_number && x.project_name === e.project_name);
    }
    if (i === -1) p.add(`archive entry ${e.project_number} (${e.project_name}) is gone`);
    else compare(`archived ${e.project_number}`, e, pool.splice(i, 1)[0]);
  }
  const skip = new Set(["active_projects", "next_project_number", "completed_projects"]);
  const top = (o) => Object.fromEntries(Object.entries(o).filter(([k]) => !skip.has(k)));
  compare("state.json", top(orig.state), end.state);
  compare("archive/state.json", top(orig.archive), end.archive);
  return {
    fields,
    updated,
    tasks: orig.state.active_projects.length,
    archived: archived(orig.archive).length,
  };
}
