import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { type AgentCatalog, type Route, resolveRoute } from "../../agents/index.js";
import type { BatonConfig } from "../../config/index.js";
import {
  computeWaves,
  type DependencyReading,
  orderedPhases,
  type Phase,
  type PhaseId,
  type Plan,
  parsePlan,
  routePhase,
} from "../../plan/index.js";
import { PlanFormatError } from "../../shared/index.js";
import { latestPlanFile, type TaskEntry, taskTypeOf } from "../../state/index.js";

/** Markers that say a phase needs no run: done, or set aside on purpose by whoever wrote the plan. */
const SETTLED = new Set(["complete", "skipped", "superseded", "not_applicable", "deferred"]);

/** Settled by its marker; a phase carried from an earlier version without one (`Same as v005`) is not. */
export function isSettled(phase: Phase): boolean {
  return phase.status !== null && SETTLED.has(phase.status);
}

/** A plan checked end to end before anything runs: parsed, layered into waves, every phase routed. */
export interface PreparedPlan {
  planPath: string;
  plan: Plan;
  lines: string[];
  waves: PhaseId[][];
  /** How the phases' dependencies were read: declared, or the plan's order when it declares none. */
  reading: DependencyReading;
  settled: Set<PhaseId>;
  routes: Map<PhaseId, Route>;
  /** Why each phase goes where it goes (the tier that decided). */
  routeReasons: Map<PhaseId, string>;
}

type PlanProblem = { line: number; message: string };

/** An unfinished phase defined twice, and a cycle or a missing dependency: a plan that cannot run. */
function structureProblems(plan: Plan, waves: ReturnType<typeof computeWaves>): PlanProblem[] {
  const problems: PlanProblem[] = [];
  // A carried phase has no body here to run: left as it is, the task would complete without it.
  const unfinished = plan.phases.filter((p) => p.carried && !isSettled(p));
  for (const line of new Set(unfinished.map((p) => p.line))) {
    const ids = unfinished.filter((p) => p.line === line).map((p) => p.id);
    problems.push({
      line,
      message: `Phase${ids.length > 1 ? "s" : ""} ${ids.join(", ")} ${ids.length > 1 ? "are" : "is"} carried from an earlier plan version without ${ids.length > 1 ? "their bodies" : "its body"} and not marked complete; write ${ids.length > 1 ? "them" : "it"} out in this plan (or mark ${ids.length > 1 ? "them" : "it"} [COMPLETED] if done) before running`,
    });
  }
  for (const id of plan.duplicates) {
    const copies = plan.phases.filter((p) => p.id === id && !p.carried);
    if (copies.some((p) => !isSettled(p))) {
      problems.push({
        line: copies[1]?.line ?? copies[0]?.line ?? 1,
        message: `Phase ${id} is defined ${copies.length} times (lines ${copies.map((p) => p.line).join(", ")}); rename or remove one before running`,
      });
    }
  }
  if (!waves.ok) {
    const where = plan.phases.find((p) => p.id === (waves.reason === "cycle" ? waves.cycle[0] : waves.phase));
    problems.push({
      line: where?.dependenciesLine ?? where?.line ?? 1,
      message:
        waves.reason === "cycle"
          ? `dependency cycle: ${[...waves.cycle, waves.cycle[0]].map((id) => `Phase ${id}`).join(" → ")}`
          : `Phase ${waves.phase} depends on Phase ${waves.dependsOn}, which is not in the plan`,
    });
  }
  return problems;
}

/** Every phase still to run, routed: its language (by the routing tiers, or --language) and its agent. */
export function routePhases(
  config: BatonConfig,
  catalog: AgentCatalog,
  task: TaskEntry,
  plan: { phases: Phase[]; lines: string[] },
  overrides: { agent?: string | undefined; language?: string | undefined },
) {
  const routes = new Map<PhaseId, Route>();
  const routeReasons = new Map<PhaseId, string>();
  const problems: PlanProblem[] = [];
  for (const phase of plan.phases.filter((p) => !isSettled(p))) {
    if (routes.has(phase.id)) continue;
    const routed = routePhase(phase, plan.lines, {
      implementers: config.phases.implementers,
      rules: config.phases.routing,
      fallbackLanguage: taskTypeOf(task) ?? config.defaultLanguage,
    });
    // Every type the repository routes runs, as research and plan route it: one no table names goes to the
    // repository's own `<type>-implementation-agent`, else the general route (agents/routing.ts). Only an
    // override must name a type Baton or the repository knows.
    routes.set(
      phase.id,
      resolveRoute(config, catalog, {
        operation: "implement",
        language: routed.language,
        languageOverride: overrides.language,
        agentOverride: overrides.agent,
      }),
    );
    routeReasons.set(phase.id, overrides.language ? "--language" : routed.reason);
  }
  return { routes, routeReasons, problems };
}

/**
 * The task's latest plan, ready to run phase by phase; null when the task has no plan file. A plan
 * that cannot drive execution (unreadable phases, a cycle, a missing dependency, an unfinished phase
 * defined twice, a route to an unknown language) throws PlanFormatError with line numbers.
 */
export function preparePlan(
  config: BatonConfig,
  catalog: AgentCatalog,
  task: TaskEntry,
  taskFolder: string,
  overrides: { agent?: string | undefined; language?: string | undefined },
): PreparedPlan | null {
  const planPath = latestPlanFile(config.root, taskFolder, task.artifacts ?? []);
  if (planPath === null) return null;
  const shown = relative(config.root, planPath);
  let text: string;
  try {
    text = readFileSync(planPath, "utf8");
  } catch {
    return null;
  }
  const parsed = parsePlan(planPath, text);
  if (!parsed.ok)
    throw new PlanFormatError(shown, parsed.problems, {
      hint: `Fix the plan, or revise it with \`baton revise ${task.project_number}\`.`,
    });
  // Dependencies as the run reads them: declared, or the plan's order when it declares none.
  const { phases, reading } = orderedPhases(parsed.plan.phases);
  const plan = { ...parsed.plan, phases };
  const waves = computeWaves(plan.phases);
  const lines = text.split(/\r?\n/);
  const routed = routePhases(config, catalog, task, { phases: plan.phases, lines }, overrides);
  const problems = [...structureProblems(plan, waves), ...routed.problems];
  if (problems.length > 0) {
    problems.sort((a, b) => a.line - b.line);
    throw new PlanFormatError(shown, problems, { hint: "Nothing ran; fix the plan and run again." });
  }
  return {
    planPath,
    plan,
    lines,
    waves: waves.ok ? waves.waves : [],
    reading,
    // An id counts as settled only if every phase with it is: a duplicate left unfinished must run.
    settled: new Set(
      plan.phases.filter((p) => plan.phases.every((q) => q.id !== p.id || isSettled(q))).map((p) => p.id),
    ),
    routes: routed.routes,
    routeReasons: routed.routeReasons,
  };
}
