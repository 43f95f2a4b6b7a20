/** What a result's evidence is made of: the artifacts verified, the diff, the checks as they ran. */

/** Where a check ran: the verdict tree (the baseline's tests and the agent's code), or the agent's own tree. */
export const CHECK_TREES = ["verdict", "agent"] as const;
export type CheckTree = (typeof CHECK_TREES)[number];

export interface VerifiedArtifact {
  type: string;
  /** Repository-relative path, as recorded in state.json. */
  path: string;
  summary?: string;
  bytes: number;
}

/** What git says the work changed, kept as the result's evidence. */
export interface ChangeEvidence {
  base: string | null;
  files: string[];
  /** Changed but not in the agent's files_changed (empty when it listed none). */
  unlisted: string[];
}

/** One check as it ran: what evidence and CHECK_FAILED report. */
/** What a check's runner reported it ran. */
export interface TestCounts {
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
}

export interface CheckRun {
  name: string;
  command: string;
  ok: boolean;
  exitCode: number | null;
  durationMs: number;
  /** Why it did not pass, when not an exit code: a timeout, a signal, a command that could not start. */
  reason?: string;
  /** The last lines of its output (stdout and stderr), for the message and the next iteration. */
  tail: string[];
  /** The tests its runner reported (JUnit); absent when it reported none Baton could read. */
  counts?: TestCounts;
  /**
   * Which tests, by the id their JUnit report gives them (class and name): those that ran (not skipped) and
   * those that passed. Held to the baseline's; not part of the evidence.
   */
  testIds?: { ran: string[]; passed: string[] };
  /**
   * Where it ran: the verdict tree (the baseline's tests and the agent's code), or the agent's own tree
   * (its tests as it left them). Absent where there was no baseline commit to build a verdict tree from.
   */
  tree?: CheckTree;
  /** The ignored folders of installed dependencies the verdict tree linked in: the result depended on them. */
  linked?: string[];
  /** Files of the user's configuration and PATH the run changed, which read empty to the check. */
  unseen?: readonly string[];
}
