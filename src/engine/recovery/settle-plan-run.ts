import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BatonConfig } from "../../config/index.js";
import { parsePlan, planStatusMarker, setPhaseMarker, setPlanStatus } from "../../plan/index.js";
import { METADATA_FILE, METADATA_NAME } from "../../shared/baton-paths.js";
import { latestPlanFile, type TaskEntry } from "../../state/index.js";
import { sessionCommitSubjects } from "../commit/index.js";
import { prunePhaseWorktrees } from "../plan-run/index.js";
import type { JournalRecord } from "../run/index.js";

/** The phases this session committed (`task N phase K: …` with its Session trailer); null without git. */
async function phaseCommits(
  root: string,
  taskNumber: number,
  sessionId: string,
): Promise<Set<string> | null> {
  const subjects = await sessionCommitSubjects(root, sessionId);
  if (subjects === null) return null;
  const prefix = `task ${taskNumber} phase `;
  return new Set(
    subjects.filter((s) => s.startsWith(prefix)).map((s) => s.slice(prefix.length).split(":")[0]!),
  );
}

export interface SettledPlanRun {
  /** Phases the dead run completed (and committed). */
  completed: string[];
  /** Phases it had started and not finished: their markers go back to what they were. */
  reopened: string[];
  planPath: string | null;
  /** The plan with those markers restored; null when nothing changes. */
  planText: string | null;
  keptBranches: string[];
}

/**
 * The plan side of recovering a dead implement run, from its journal: phases it left [IN PROGRESS]
 * get their earlier marker back, its worktrees are removed (branches holding commits are kept) and
 * its per-phase metadata files go. Null when the run was not a plan run.
 */
export async function settlePlanRun(
  config: BatonConfig,
  task: TaskEntry,
  folder: string,
  sessionId: string,
  records: readonly JournalRecord[],
): Promise<SettledPlanRun | null> {
  const phaseRecords = records.filter((r) => r.step === "PHASE");
  if (phaseRecords.length === 0) return null;
  const begun = new Map<string, string | null>();
  const ended = new Map<string, boolean>();
  for (const record of phaseRecords) {
    const id = String(record.detail?.["phase"] ?? "");
    if (record.phase === "begin") {
      const previous = record.detail?.["previousMarker"];
      begun.set(id, typeof previous === "string" ? previous : null);
    } else ended.set(id, record.ok === true);
  }
  const completed = [...ended].filter(([, ok]) => ok).map(([id]) => id);
  const unfinished = [...begun.keys()].filter((id) => !ended.has(id));
  const pruned = await prunePhaseWorktrees(config.root, sessionId).catch(() => ({
    removed: [],
    keptBranches: [],
  }));
  try {
    for (const name of readdirSync(folder)) {
      if (METADATA_NAME.test(name) && name !== METADATA_FILE) rmSync(join(folder, name), { force: true });
    }
  } catch {
    // no task folder: nothing to clean
  }
  const planPath = latestPlanFile(config.root, folder, task.artifacts ?? []);
  const restored =
    planPath === null
      ? null
      : await restorePlan(config, task, sessionId, planPath, { begun, unfinished, completed });
  const planText = restored?.planText ?? null;
  const reopened = restored?.reopened ?? [];
  return { completed, reopened, planPath, planText, keptBranches: pruned.keptBranches };
}

/**
 * The plan, not the journal, says how far a phase got: a kill between a phase's recorded marker (and
 * commit) and its journal end leaves it recorded. Only markers still [IN PROGRESS] go back, and a phase
 * marked complete without its commit (the record may not run ahead of the commit) is reopened.
 */
async function restorePlan(
  config: BatonConfig,
  task: TaskEntry,
  sessionId: string,
  planPath: string,
  phases: { begun: Map<string, string | null>; unfinished: string[]; completed: string[] },
): Promise<{ planText: string | null; reopened: string[] }> {
  const { begun, unfinished, completed } = phases;
  const original = readFileSync(planPath, "utf8");
  const before = parsePlan(planPath, original);
  const current = new Map(
    (before.ok ? before.plan : before.partial).phases.filter((p) => !p.carried).map((p) => [p.id, p.status]),
  );
  const committed = config.commit ? await phaseCommits(config.root, task.project_number, sessionId) : null;
  const reopened: string[] = [];
  for (const id of unfinished) {
    const status = current.get(id);
    if (status === "in_progress") reopened.push(id);
    // Its work is still in the tree for the next run.
    else if (status === "complete" && committed !== null && !committed.has(id)) reopened.push(id);
    else if (status === "complete" && !completed.includes(id)) completed.push(id);
  }
  let text = original;
  for (const id of reopened) {
    const edited = setPhaseMarker(text, id, begun.get(id) ?? "NOT STARTED");
    if (edited.ok) text = edited.text;
  }
  const parsed = parsePlan(planPath, text);
  if (completed.length > 0 && parsed.ok) {
    const status = setPlanStatus(text, planStatusMarker(parsed.plan.style, "partial"));
    if (status.changed) text = status.text;
  }
  return { planText: text !== original ? text : null, reopened };
}
