import type { BatonConfig } from "../../config/index.js";
import type { RunUsage } from "../../runners/index.js";
import type { Operation } from "../../shared/operation-names.js";
import { readEventIndex } from "../../status/index.js";

/**
 * Spending limits in USD, held in code: a run that would cross one does not start its next agent, and
 * an agent whose streamed cost crosses one is stopped. Spend is what the runners report (Claude Code's
 * result, opencode's steps, a scripted agent's `spend` steps); an agent that reports no cost spends 0.
 */
/** The limits, in the order a crossing is looked for: the narrowest first. */
const BUDGET_SCOPES = ["operation", "planRun", "task", "day"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

export interface BudgetLimits {
  operation?: number;
  task?: number;
  planRun?: number;
  day?: number;
}

export interface BudgetStop {
  scope: BudgetScope;
  limitUsd: number;
  spentUsd: number;
  message: string;
}

/** The limits one run is held to: the configuration's, with `--max-cost` as the operation's own. */
export function budgetLimits(
  config: BatonConfig,
  operation: Operation,
  maxCost: number | undefined,
  planRun: boolean,
): BudgetLimits {
  const b = config.budgets;
  const perOperation = typeof b.operation === "number" ? b.operation : b.operation?.[operation];
  const limits: BudgetLimits = {};
  const operationLimit = maxCost ?? perOperation;
  if (operationLimit !== undefined) limits.operation = operationLimit;
  if (b.task !== undefined) limits.task = b.task;
  if (planRun && b.planRun !== undefined) limits.planRun = b.planRun;
  if (b.day !== undefined) limits.day = b.day;
  return limits;
}

const LABEL: Record<BudgetScope, string> = {
  operation: "this operation's budget",
  task: "the task's budget",
  planRun: "the plan run's budget",
  day: "today's budget",
};

const money = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;

/**
 * One run's budget: what it has spent, what the task and the day had spent before it (from the event
 * stream), and the largest single agent run so far, taken as the cost of the next one.
 */
export class BudgetGuard {
  private spent = 0;
  private largestRun = 0;
  /** Cumulative cost of each agent still running (phases of a wave run at once). */
  private readonly inFlight = new Map<string, number>();
  stopped: BudgetStop | undefined;

  constructor(
    readonly limits: BudgetLimits,
    private readonly before: { task: number; day: number },
  ) {}

  static forRun(root: string, limits: BudgetLimits, task: number): BudgetGuard {
    if (Object.keys(limits).length === 0) return new BudgetGuard(limits, { task: 0, day: 0 });
    const index = readEventIndex(root);
    const today = new Date().toISOString().slice(0, 10);
    return new BudgetGuard(limits, {
      task: index.byTask[String(task)]?.costUsd ?? 0,
      day: index.byDay[today]?.costUsd ?? 0,
    });
  }

  get active(): boolean {
    return Object.keys(this.limits).length > 0;
  }

  /** What each scope has spent, with `extra` more. */
  private spentIn(scope: BudgetScope, extra: number): number {
    const own = this.spent + extra;
    return scope === "task" ? this.before.task + own : scope === "day" ? this.before.day + own : own;
  }

  private crossing(extra: number, strict: boolean): BudgetStop | undefined {
    for (const scope of BUDGET_SCOPES) {
      const limit = this.limits[scope];
      if (limit === undefined) continue;
      const spent = this.spentIn(scope, extra);
      if (strict ? spent > limit + 1e-9 : spent >= limit - 1e-9) {
        const already = this.spentIn(scope, 0);
        return {
          scope,
          limitUsd: limit,
          spentUsd: Math.round(already * 1e6) / 1e6,
          message: `${LABEL[scope]} is ${money(limit)} and ${money(already)} is spent`,
        };
      }
    }
    return undefined;
  }

  /**
   * Whether the next agent run may start: not when a limit is reached, nor when the largest run so far
   * would cross it. The first run of all is judged on what was spent before it only.
   */
  mayStart(): BudgetStop | undefined {
    const stop =
      this.crossing(0, false) ?? (this.largestRun > 0 ? this.crossing(this.largestRun, true) : undefined);
    if (stop) this.stopped ??= { ...stop, message: `${stop.message}; the next agent run would cross it` };
    return stop;
  }

  private flying(): number {
    let sum = 0;
    for (const cost of this.inFlight.values()) sum += cost;
    return sum;
  }

  /** A running agent's cumulative usage: true when the run has crossed a limit and it must be stopped. */
  onUsage(key: string, usage: RunUsage): boolean {
    this.inFlight.set(key, usage.costUsd ?? 0);
    const stop = this.crossing(this.flying(), true);
    if (!stop) return false;
    this.stopped ??= {
      ...stop,
      message: `${LABEL[stop.scope]} is ${money(stop.limitUsd)}: a running agent crossed it and was stopped`,
    };
    return true;
  }

  /** An agent run finished: its cost counts, and sets the estimate for the next one. */
  finished(key: string, usage: RunUsage | undefined): void {
    const cost = usage?.costUsd ?? this.inFlight.get(key) ?? 0;
    this.inFlight.delete(key);
    this.spent = Math.round((this.spent + cost) * 1e6) / 1e6;
    this.largestRun = Math.max(this.largestRun, cost);
  }
}
