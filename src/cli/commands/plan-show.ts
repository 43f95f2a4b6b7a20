import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { loadAgentCatalog } from "../../agents/index.js";
import { type BatonConfig, loadConfig } from "../../config/index.js";
import { routePhases } from "../../engine/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import {
  type DependencyReading,
  type Phase,
  type PhaseId,
  type PlanProblem,
  type PlanStatus,
  type PlanStyle,
  parsePlan,
  planWaves,
  type WavesResult,
} from "../../plan/index.js";
import { UsageError } from "../../shared/index.js";
import { latestPlanFile, readSettledStore, storeContext, taskFolderPath } from "../../state/index.js";
import { notActive, parseTaskNumber, type RepoOptions } from "./task.js";

export interface PlanShowView {
  /** The task the plan belongs to (null for a plan file outside any task folder). */
  task: number | null;
  /** Relative to the repository root. */
  file: string;
  ok: boolean;
  style: PlanStyle;
  status: PlanStatus | null;
  phases: Phase[];
  waves: PhaseId[][] | null;
  /** How the phases' dependencies were read: declared, or the plan's order when it declares none. */
  reading: DependencyReading;
  wavesError: Exclude<WavesResult, { ok: true }> | null;
  problems: PlanProblem[];
  /** Read one defined way and never failing the plan: duplicate ids, references to earlier versions. */
  warnings: PlanProblem[];
  /** For a task's plan: the agent each phase still to run goes to, and why (`implement` routes the same way). */
  agents: Record<PhaseId, { agent: string; reason: string }>;
}

/** `baton plan show <task-or-file>`: a task number shows its latest plan; anything else is a plan file. */
export async function planShow(options: RepoOptions & { target: string }): Promise<PlanShowView> {
  const config = await loadConfig(options.repo);
  const isNumber = /^\d+$/.test(options.target.trim());
  const { path, task } = isNumber
    ? await latestPlanOf(config, parseTaskNumber(options.target))
    : planFile(options.target);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read the plan ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`, {
      cause: error,
      hint: isNumber ? undefined : "Give a task number, or the path of a plan file that exists.",
    });
  }
  const parsed = parsePlan(path, text);
  const plan = parsed.ok ? parsed.plan : parsed.partial;
  const waves = planWaves(plan.phases);
  return {
    task,
    file: relative(config.root, path),
    ok: parsed.ok && waves.ok,
    style: plan.style,
    status: plan.status,
    phases: plan.phases,
    waves: waves.ok ? waves.waves : null,
    reading: waves.reading,
    wavesError: waves.ok ? null : waves,
    problems: parsed.ok ? [] : parsed.problems,
    warnings: parsed.warnings,
    agents: await phaseAgents(config, task, plan.phases, text.split(/\r?\n/)),
  };
}

/** Where `implement` would send each phase of a task's plan still to run (nothing for a loose plan file). */
async function phaseAgents(
  config: BatonConfig,
  task: number | null,
  phases: Phase[],
  lines: string[],
): Promise<PlanShowView["agents"]> {
  if (task === null) return {};
  const entry = (await readSettledStore(storeContext(config))).state.tasks.find(
    (t) => t.project_number === task,
  );
  if (!entry) return {};
  const catalog = loadAgentCatalog(config.root, agentFileReaders());
  const { routes, routeReasons } = routePhases(config, catalog, entry, { phases, lines }, {});
  return Object.fromEntries(
    [...routes].map(([id, route]) => [id, { agent: route.agent.name, reason: routeReasons.get(id) ?? "" }]),
  );
}

async function latestPlanOf(config: BatonConfig, number: number): Promise<{ path: string; task: number }> {
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const task = snapshot.state.tasks.find((t) => t.project_number === number);
  if (!task) throw notActive(ctx, number);
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  const path = latestPlanFile(config.root, folder, task.artifacts ?? []);
  if (path === null) {
    throw new UsageError(`task ${number} has no plan`, { hint: `Write one with \`baton plan ${number}\`.` });
  }
  return { path, task: number };
}

function planFile(target: string): { path: string; task: number | null } {
  const path = resolve(target);
  const folder = /(?:^|[\\/])(\d+)_[^\\/]+[\\/]plans[\\/][^\\/]+$/.exec(path);
  return { path, task: folder ? Number(folder[1]) : null };
}

export function formatPlanShow(view: PlanShowView): string {
  const out = [view.task === null ? `Plan ${view.file}` : `Plan of task ${view.task}: ${view.file}`];
  out.push(`Style: ${view.style === "task" ? "task system" : "hard-barrier"}`);
  if (view.status) out.push(`Status: [${view.status.marker}]`);
  out.push("", "Phases:");
  for (const p of view.phases) {
    if (p.carried) {
      out.push(`  ${p.id}. ${p.name} [${p.marker ?? "no marker"}] (carried from an earlier plan)`);
      continue;
    }
    const deps = p.dependencies.length === 0 ? "none" : p.dependencies.join(", ");
    const routed = view.agents[p.id];
    out.push(
      `  ${p.id}. ${p.name} [${p.marker ?? "no marker"}]  depends on: ${deps}  checkboxes: ${p.checkboxes.done}/${p.checkboxes.total}${routed ? `  → ${routed.agent} (${routed.reason})` : ""}`,
    );
  }
  if (view.waves) {
    const how =
      view.reading === "declared"
        ? "from the dependencies the phases declare"
        : "in the plan's order: no phase declares its dependencies, so each runs after the one before";
    out.push("", `Waves (${how}):`, ...view.waves.map((ids, k) => `  Wave ${k + 1}: ${ids.join(", ")}`));
  } else if (view.wavesError?.reason === "cycle") {
    out.push("", `Waves: none, dependency cycle ${view.wavesError.cycle.join(" → ")}`);
  } else if (view.wavesError?.reason === "missing") {
    const e = view.wavesError;
    out.push("", `Waves: none, Phase ${e.phase} depends on missing Phase ${e.dependsOn}`);
  }
  if (view.problems.length > 0) {
    out.push("", "Problems:", ...view.problems.map((p) => `  ${view.file}:${p.line}: ${p.message}`));
  }
  if (view.warnings.length > 0) {
    out.push("", "Warnings:", ...view.warnings.map((p) => `  ${view.file}:${p.line}: ${p.message}`));
  }
  return out.join("\n");
}
