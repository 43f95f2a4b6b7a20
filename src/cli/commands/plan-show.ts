import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { loadConfig } from "../../config/index.js";
import {
  computeWaves,
  type Phase,
  type PhaseId,
  type PlanProblem,
  type PlanStatus,
  type PlanStyle,
  parsePlan,
  type WavesResult,
} from "../../plan/index.js";
import { UsageError } from "../../shared/index.js";
import { latestPlanFile, readSettledStore, storeContext, taskFolderPath } from "../../state/index.js";
import { parseTaskNumber, type RepoOptions } from "./task.js";

export interface PlanShowView {
  task: number;
  /** Relative to the repository root. */
  file: string;
  ok: boolean;
  style: PlanStyle;
  status: PlanStatus | null;
  phases: Phase[];
  waves: PhaseId[][] | null;
  wavesError: Exclude<WavesResult, { ok: true }> | null;
  problems: PlanProblem[];
  /** Read one defined way and never failing the plan: duplicate ids, references to earlier versions. */
  warnings: PlanProblem[];
}

export async function planShow(options: RepoOptions & { number: string }): Promise<PlanShowView> {
  const config = await loadConfig(options.repo);
  const ctx = storeContext(config);
  const number = parseTaskNumber(options.number);
  const snapshot = await readSettledStore(ctx);
  const task = snapshot.state.tasks.find((t) => t.project_number === number);
  if (!task)
    throw new UsageError(`task ${number} does not exist`, { hint: "`baton task list` shows active tasks." });
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  const path = latestPlanFile(config.root, folder, task.artifacts ?? []);
  if (path === null) {
    throw new UsageError(`task ${number} has no plan`, { hint: `Write one with \`baton plan ${number}\`.` });
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read the plan of task ${number}: ${path}`, { cause: error });
  }
  const parsed = parsePlan(path, text);
  const plan = parsed.ok ? parsed.plan : parsed.partial;
  const waves = computeWaves(plan.phases);
  return {
    task: number,
    file: relative(config.root, path),
    ok: parsed.ok && waves.ok,
    style: plan.style,
    status: plan.status,
    phases: plan.phases,
    waves: waves.ok ? waves.waves : null,
    wavesError: waves.ok ? null : waves,
    problems: parsed.ok ? [] : parsed.problems,
    warnings: parsed.warnings,
  };
}

export function formatPlanShow(view: PlanShowView): string {
  const out = [`Plan of task ${view.task}: ${view.file}`];
  out.push(`Style: ${view.style === "task" ? "task system" : "hard-barrier"}`);
  if (view.status) out.push(`Status: [${view.status.marker}]`);
  out.push("", "Phases:");
  for (const p of view.phases) {
    if (p.carried) {
      out.push(`  ${p.id}. ${p.name} [${p.marker ?? "no marker"}] (carried from an earlier plan)`);
      continue;
    }
    const deps = p.dependencies.length === 0 ? "none" : p.dependencies.join(", ");
    out.push(
      `  ${p.id}. ${p.name} [${p.marker ?? "no marker"}]  depends on: ${deps}  checkboxes: ${p.checkboxes.done}/${p.checkboxes.total}`,
    );
  }
  if (view.waves) {
    out.push("", "Waves:", ...view.waves.map((ids, k) => `  Wave ${k + 1}: ${ids.join(", ")}`));
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
