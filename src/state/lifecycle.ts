import { TransitionError } from "../shared/index.js";
/**
 * The status lifecycle, as one table. The original documents disagreed (format reference 13.3); the
 * decisions and their reasons are in docs/lifecycle.md. Operations write their
 * in-progress status at GATE IN and their done status at GATE OUT; a failed run keeps the in-progress
 * status so the same operation can be retried from it.
 */
import { OPERATIONS, type Operation } from "../shared/operation-names.js";
import type { TaskStatus } from "./task-status.js";

export { OPERATIONS, type Operation } from "../shared/operation-names.js";

export interface OperationRule {
  from: readonly TaskStatus[];
  inProgress: TaskStatus;
  done: TaskStatus;
  /** Why each excluded status is refused, for the error message. */
  refused: Partial<Record<TaskStatus, string>>;
}

export const OPERATION_RULES: Record<Operation, OperationRule> = {
  research: {
    from: ["not_started", "researching", "researched", "planned", "partial", "blocked", "implementing"],
    inProgress: "researching",
    done: "researched",
    refused: {
      completed: "the task is completed",
      abandoned: "the task is abandoned; `baton task recover` it first",
      expanded: "the task was expanded; research its subtasks",
    },
  },
  plan: {
    from: ["not_started", "researched", "planning", "partial"],
    inProgress: "planning",
    done: "planned",
    refused: {
      planned: "the task already has a plan; use `baton revise` to replace it",
      implementing: "implementation has started; use `baton revise` to change the plan",
      completed: "the task is completed",
      abandoned: "the task is abandoned",
      expanded: "the task was expanded; plan its subtasks",
    },
  },
  implement: {
    from: ["planned", "implementing", "partial"],
    inProgress: "implementing",
    done: "completed",
    refused: {
      not_started: "the task has no plan; run `baton plan` first",
      researched: "the task has no plan; run `baton plan` first",
      completed: "the task is already completed",
      abandoned: "the task is abandoned",
      expanded: "the task was expanded; implement its subtasks",
    },
  },
  revise: {
    from: ["planned", "implementing", "partial", "blocked", "planning"],
    inProgress: "planning",
    done: "planned",
    refused: {
      not_started: "the task has no plan to revise; run `baton plan`",
      researched: "the task has no plan to revise; run `baton plan`",
      completed: "the task is completed",
      abandoned: "the task is abandoned",
    },
  },
};

/** The statuses only a running operation writes (at GATE IN), from the table above. */
export const IN_PROGRESS_STATUSES: readonly string[] = [
  ...new Set(OPERATIONS.map((operation) => OPERATION_RULES[operation].inProgress)),
];

/**
 * Manual moves (`baton task status N <status>`): for each target, the statuses it may be set from.
 * In-progress statuses are absent on purpose: only an operation that opens a checkpoint writes them.
 */
export const MANUAL_TRANSITIONS: Partial<Record<TaskStatus, readonly TaskStatus[]>> = {
  not_started: ["researching", "blocked"],
  researched: ["researching", "planning", "blocked"],
  planned: ["planning", "implementing", "partial", "blocked"],
  partial: ["implementing", "blocked"],
  blocked: ["not_started", "researching", "researched", "planning", "planned", "implementing", "partial"],
  completed: ["planned", "implementing", "partial"],
};

export type TransitionVerdict = { ok: true; forced: boolean } | { ok: false; reason: string };

export function checkOperationStart(operation: Operation, status: string, force: boolean): TransitionVerdict {
  const rule = OPERATION_RULES[operation];
  if ((rule.from as readonly string[]).includes(status)) return { ok: true, forced: false };
  if (force) return { ok: true, forced: true };
  const why =
    rule.refused[status as TaskStatus] ?? `status "${status}" is not one of ${rule.from.join(", ")}`;
  return { ok: false, reason: `cannot ${operation}: ${why}` };
}

export function checkManualTransition(from: string, to: string, force: boolean): TransitionVerdict {
  if (from === to) return { ok: false, reason: `the task is already ${to}` };
  if (IN_PROGRESS_STATUSES.includes(to)) {
    return {
      ok: false,
      reason: `"${to}" is written only by a running operation (baton ${OPERATIONS.join("/")})`,
    };
  }
  if (to === "abandoned") return { ok: false, reason: "use `baton task abandon N` to abandon a task" };
  if (to === "expanded") return { ok: false, reason: "use `baton task expand N` to split a task" };
  const allowed = MANUAL_TRANSITIONS[to as TaskStatus];
  if (!allowed) return { ok: false, reason: `"${to}" is not a task status Baton can set` };
  if ((allowed as readonly string[]).includes(from)) return { ok: true, forced: false };
  if (force) return { ok: true, forced: true };
  return {
    ok: false,
    reason: `cannot move from ${from} to ${to}; ${to} may be set only from ${allowed.join(", ")} (use --force to override, which is recorded on the task)`,
  };
}

export function assertVerdict(verdict: TransitionVerdict, taskNumber: number): { forced: boolean } {
  if (!verdict.ok) throw new TransitionError(`task ${taskNumber}: ${verdict.reason}`);
  return { forced: verdict.forced };
}
