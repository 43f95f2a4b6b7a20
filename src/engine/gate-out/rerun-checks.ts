import { dirname } from "node:path";
import type { BatonConfig, ConfiguredCheck } from "../../config/index.js";
import type { Completion, TestCounts } from "../../evidence/index.js";
import { runGit } from "../../shared/git.js";
import { storePrefix } from "../../state/index.js";
import { checkPlace } from "./check-sandbox.js";
import { runChecks } from "./project-checks.js";
import { withScratchTree } from "./scratch-tree.js";

/**
 * `baton verify --rerun`: the checks a completion's evidence recorded, run again on a clean checkout of
 * its commit, and their counts held to the recorded ones. A result that passed only in the tree the
 * agent left (a file never committed, a test that passes by chance) does not pass again.
 */
export interface Rerun {
  task: number;
  commit: string;
  check: string;
  command: string;
  recorded: TestCounts | null;
  now: TestCounts | null;
  ok: boolean;
  /** Why the rerun disagrees with the record; absent when it agrees. */
  problem?: string;
}

interface RecordedCheck {
  name: string;
  command: string;
  counts?: TestCounts;
  recordedAt: string;
}

/** The checks recorded by every evidence file of the completion's session in its task folder, latest per name. */
async function recordedChecks(root: string, completion: Completion): Promise<RecordedCheck[]> {
  const folder = dirname(completion.evidencePath!);
  const listed = await runGit(root, ["ls-tree", "--name-only", completion.commit, `${folder}/`]);
  const latest = new Map<string, RecordedCheck>();
  for (const path of listed.ok ? listed.stdout.split("\n").filter((p) => p.endsWith(".json")) : []) {
    if (completion.session && !path.includes(`/${completion.session}-`)) continue;
    const shown = await runGit(root, ["show", `${completion.commit}:${path}`]);
    try {
      const evidence = JSON.parse(shown.stdout) as { checks?: RecordedCheck[]; recordedAt?: string };
      for (const check of evidence.checks ?? []) {
        const at = evidence.recordedAt ?? "";
        if ((latest.get(check.name)?.recordedAt ?? "") <= at)
          latest.set(check.name, { ...check, recordedAt: at });
      }
    } catch {
      // Not evidence Baton can read: verify itself reports what is wrong with it.
    }
  }
  return [...latest.values()];
}

const same = (a: TestCounts, b: TestCounts) =>
  a.tests === b.tests &&
  a.passed === b.passed &&
  a.failed === b.failed &&
  a.skipped === b.skipped &&
  a.todo === b.todo;

function judged(
  completion: Completion,
  check: RecordedCheck,
  run: { ok: boolean; exitCode: number | null; counts?: TestCounts } | undefined,
): Rerun {
  const base = {
    task: completion.task,
    commit: completion.commit,
    check: check.name,
    command: check.command,
  };
  const recorded = check.counts ?? null;
  const now = run?.counts ?? null;
  let problem: string | undefined;
  if (!run) problem = "a clean checkout of the commit could not be made";
  else if (!run.ok) problem = `it fails on a clean checkout (exit ${run.exitCode})`;
  else if (recorded && !now) problem = "its runner reported no tests on a clean checkout";
  else if (recorded && now && !same(recorded, now))
    problem = "its runner reports other counts than the evidence";
  return { ...base, recorded, now, ok: problem === undefined, ...(problem ? { problem } : {}) };
}

export async function rerunChecks(config: BatonConfig, completions: readonly Completion[]): Promise<Rerun[]> {
  const reruns: Rerun[] = [];
  for (const completion of completions) {
    if (!completion.evidencePath) continue;
    const recorded = await recordedChecks(config.root, completion);
    if (recorded.length === 0) continue;
    // The configuration's own entry gives a check its timeout, report file and holdout; its command is the record's.
    const checks: ConfiguredCheck[] = recorded.map((r) => {
      const configured = config.checks.find((c) => c.name === r.name);
      return {
        name: r.name,
        run: r.command,
        timeoutMs: configured?.timeoutMs ?? 600_000,
        languages: null,
        when: "both",
        report: configured?.report ?? null,
        format: configured?.format ?? "junit",
        holdout: configured?.holdout ?? null,
        network: configured?.network ?? false,
      };
    });
    const place = checkPlace(config.root, storePrefix(config.root, config.specsDir), config.checks);
    const runs = await withScratchTree(config.root, completion.commit, (tree) =>
      runChecks(checks, tree, place),
    );
    for (const check of recorded)
      reruns.push(
        judged(
          completion,
          check,
          runs?.find((r) => r.name === check.name),
        ),
      );
  }
  return reruns;
}
