/**
 * Task numbers. The next number is `next_project_number` (the higher of the state.json and TODO.md
 * copies), moved past any number a live task or an archived one holds. It is never "one above the
 * highest task": a repository that moved old work to a vault restarts its numbering (active tasks
 * 8 … 81 beside 619 … 998), and the next task there is 82, not 999.
 */
export interface NumberHolders {
  active: ReadonlySet<number>;
  /** Entries only TODO.md has still hold their number. */
  todo: ReadonlySet<number>;
  archived: ReadonlySet<number>;
}

/** Where a task number is held: an active task, a TODO.md entry, or the archive. */
export type NumberHolder = "active" | "todo" | "archived";

export function numberHolder(holders: NumberHolders, n: number): NumberHolder | null {
  if (holders.active.has(n)) return "active";
  if (holders.todo.has(n)) return "todo";
  if (holders.archived.has(n)) return "archived";
  return null;
}

/** The first number from `start` on that nothing holds. */
export function firstFreeNumber(start: number, isTaken: (n: number) => boolean): number {
  let next = Math.max(0, start);
  while (isTaken(next)) next++;
  return next;
}

export function describeHolder(holder: NumberHolder, n: number): string {
  if (holder === "active") return `active task ${n}`;
  if (holder === "todo") return `the TODO.md entry ${n}`;
  return `archived task ${n}`;
}
