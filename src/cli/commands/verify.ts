import { loadConfig } from "../../config/index.js";
import { type Rerun, rerunChecks } from "../../engine/index.js";
import { forgedClaims, type VerifyReport, verifyHistory } from "../../evidence/index.js";
import { requireRepository, UsageError } from "../../shared/index.js";
import { parseTaskNumbers, requireStore, storeContext } from "../../state/index.js";

/** `baton verify [N…] [--since REV]`: audits the history of done statuses against Baton's evidence. */
export async function verify(options: {
  repo: string;
  numbers: string[];
  since?: string | undefined;
  /** Key fingerprints pinned as the roots of trust, in place of the adoption's keys. */
  trust?: string[] | undefined;
  /** Run each verified completion's recorded checks again on a clean checkout and compare the counts. */
  rerun?: boolean | undefined;
  onProgress?: ((done: number, total: number) => void) | undefined;
}): Promise<VerifyReport & { reruns?: Rerun[] }> {
  const config = await loadConfig(options.repo);
  requireRepository(config.root, "there is no history to verify");
  requireStore(storeContext(config));
  let tasks: number[] | undefined;
  if (options.numbers.length > 0) {
    try {
      tasks = parseTaskNumbers(options.numbers);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const report = await verifyHistory(config, {
    ...(tasks ? { tasks } : {}),
    ...(options.since ? { since: options.since } : {}),
    ...(options.trust && options.trust.length > 0 ? { trust: options.trust } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  if (!options.rerun) return report;
  const judged = [...report.verified, ...report.unsandboxed, ...report.keyReachable];
  return { ...report, reruns: await rerunChecks(config, judged) };
}

/** What fails `baton verify`: a phantom completion, a commit passed off as Baton's, a check that disagrees. */
export const verifyFailed = (report: VerifyReport & { reruns?: Rerun[] }): boolean =>
  report.phantoms.length > 0 ||
  report.phaseCommits.problems.length > 0 ||
  forgedClaims(report).length > 0 ||
  (report.reruns?.some((r) => !r.ok) ?? false);

function formatReruns(reruns: readonly Rerun[]): string[] {
  const counted = (c: Rerun["now"]) =>
    c ? `${c.tests} tests, ${c.passed} passed, ${c.skipped + c.todo} skipped` : "no count";
  return [
    `Checks run again on clean checkouts: ${reruns.filter((r) => r.ok).length} of ${reruns.length} agree with the evidence.`,
    ...reruns.map((r) =>
      r.ok
        ? `  ok      task ${r.task} check "${r.check}" in ${short(r.commit)}: ${counted(r.now)}`
        : `  RERUN   task ${r.task} check "${r.check}" (\`${r.command}\`) in ${short(r.commit)}: ${r.problem}; recorded ${counted(r.recorded)}, now ${counted(r.now)}`,
    ),
  ];
}

const short = (sha: string) => sha.slice(0, 10);

const forged = (report: VerifyReport) => {
  const count = forgedClaims(report).length;
  return count > 0 ? `; ${count} commit(s) passed off as Baton's` : "";
};

/** Verified completions made with less than every guard: listed apart, never among the plainly verified. */
function formatApart(report: VerifyReport): string[] {
  const lines: string[] = [];
  for (const a of report.selfApproved) {
    lines.push(
      `  SELF    task ${a.task}: ${a.plan} was approved by ${a.who}, who also added it (${short(a.commit)})`,
    );
  }
  if (report.unsandboxed.length > 0) {
    lines.push(
      `Run without Baton's sandbox (--sandbox off), otherwise verified: ${report.unsandboxed.length} completion(s)`,
    );
    for (const c of report.unsandboxed)
      lines.push(`  unsandboxed task ${c.task} → ${c.to} in ${short(c.commit)} (${c.session})`);
  }
  if (report.keyReachable.length > 0) {
    lines.push(
      `Made while the signing key was in reach of the model's commands, otherwise verified: ${report.keyReachable.length} completion(s)`,
    );
    for (const c of report.keyReachable)
      lines.push(
        `  key-reachable task ${c.task} → ${c.to} in ${short(c.commit)} (${c.session}): ${c.reason}`,
      );
  }
  return lines;
}

/** Commits that type Baton's trailer without its seal: made-up sessions fail, the rest are listed apart. */
function formatUnsealed(report: VerifyReport): string[] {
  const lines: string[] = [];
  for (const c of report.unsealed) {
    const what = `commit ${short(c.commit)} "${c.subject}" carries Session: ${c.session} without Baton's seal`;
    if (c.acceptedBy) lines.push(`  accepted ${what}; a person accepted it in ${short(c.acceptedBy)}`);
    else if (c.knownSession)
      lines.push(`  unsealed ${what}: Baton's own session, rebased, cherry-picked or squashed`);
    else
      lines.push(
        `  FORGED  ${what}, for a session Baton never ran here: made to pass as Baton's (\`baton key accept-commit ${short(c.commit)}\` if a person made it on purpose)`,
      );
  }
  return lines;
}

export function formatVerify(
  report: VerifyReport & { reruns?: Rerun[] },
  options: { all?: boolean } = {},
): string {
  const lines: string[] = [];
  const where = report.from ? `since ${short(report.from)}` : "(Baton is not adopted in this history)";
  const apart =
    (report.unsandboxed.length > 0 ? `, ${report.unsandboxed.length} run unsandboxed` : "") +
    (report.keyReachable.length > 0
      ? `, ${report.keyReachable.length} with the key in the model's reach`
      : "");
  lines.push(
    `Verified ${report.verified.length} completion(s) ${where}${apart}; ${report.phantoms.length} phantom(s)${forged(report)}.`,
  );
  for (const k of report.keys.unvouched) {
    lines.push(
      `  KEY     ${k.fingerprint} was added in ${short(k.commit)} and no trusted key vouches for it; evidence it signs is not verified (\`baton key vouch ${k.fingerprint}\` on a machine holding a trusted key)`,
    );
  }
  for (const p of report.phantoms) {
    lines.push(
      `  PHANTOM task ${p.task} → ${p.to} in ${short(p.commit)} "${p.subject}"`,
      ...p.reasons.map((r) => `    - ${r}`),
    );
  }
  if (report.phaseCommits.checked > 0)
    lines.push(
      `Phase commits held to their evidence: ${report.phaseCommits.checked - report.phaseCommits.problems.length} of ${report.phaseCommits.checked}.`,
    );
  for (const p of report.phaseCommits.problems) {
    lines.push(`  PHASE   ${short(p.commit)} "${p.subject}"`, ...p.reasons.map((r) => `    - ${r}`));
  }
  for (const c of report.verified) {
    lines.push(`  ok      task ${c.task} → ${c.to} in ${short(c.commit)} (${c.session})`);
  }
  lines.push(...formatApart(report));
  lines.push(...formatUnsealed(report));
  if (report.beforeAdoption.length > 0) {
    // History from before Baton vouches for nothing and fails nothing: one line, unless asked for.
    const tasks = new Set(report.beforeAdoption.map((c) => c.task)).size;
    lines.push(
      `Before adoption (not checked): ${report.beforeAdoption.length} completion(s) of ${tasks} task(s)${options.all ? "" : "; `baton verify --all` lists them"}`,
    );
    if (options.all) {
      for (const c of report.beforeAdoption) lines.push(`  task ${c.task} → ${c.to} in ${short(c.commit)}`);
    }
  }
  if (report.truncated) {
    // A shallow clone verifies what it has; what lies past its cut is named, not failed.
    const { boundary, completions } = report.truncated;
    lines.push(
      `History is shallow (cut at ${boundary.map(short).join(", ")}): ${completions.length} completion(s) recorded at the cut cannot be checked without the commit before it, and earlier history is not here; \`git fetch --unshallow\` verifies all of it`,
    );
    for (const c of completions) lines.push(`  cut     task ${c.task} → ${c.to} in ${short(c.commit)}`);
  }
  if (report.reruns) lines.push(...formatReruns(report.reruns));
  return lines.join("\n");
}
