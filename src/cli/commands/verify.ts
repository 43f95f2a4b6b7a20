import { loadConfig } from "../../config/index.js";
import { type VerifyReport, verifyHistory } from "../../evidence/index.js";
import { UsageError } from "../../shared/index.js";
import { parseTaskNumbers } from "../../state/index.js";

/** `baton verify [N…] [--since REV]`: audits the history of done statuses against Baton's evidence. */
export async function verify(options: {
  repo: string;
  numbers: string[];
  since?: string | undefined;
  /** Key fingerprints pinned as the roots of trust, in place of the adoption's keys. */
  trust?: string[] | undefined;
}): Promise<VerifyReport> {
  const config = await loadConfig(options.repo);
  let tasks: number[] | undefined;
  if (options.numbers.length > 0) {
    try {
      tasks = parseTaskNumbers(options.numbers);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  return verifyHistory(config, {
    ...(tasks ? { tasks } : {}),
    ...(options.since ? { since: options.since } : {}),
    ...(options.trust && options.trust.length > 0 ? { trust: options.trust } : {}),
  });
}

const short = (sha: string) => sha.slice(0, 10);

export function formatVerify(report: VerifyReport): string {
  const lines: string[] = [];
  const where = report.from ? `since ${short(report.from)}` : "(Baton is not adopted in this history)";
  const apart = report.unsandboxed.length > 0 ? `, ${report.unsandboxed.length} run unsandboxed` : "";
  lines.push(
    `Verified ${report.verified.length} completion(s) ${where}${apart}; ${report.phantoms.length} phantom(s).`,
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
  for (const c of report.verified) {
    lines.push(`  ok      task ${c.task} → ${c.to} in ${short(c.commit)} (${c.session})`);
  }
  if (report.unsandboxed.length > 0) {
    lines.push(
      `Run without Baton's sandbox (--sandbox off), otherwise verified: ${report.unsandboxed.length} completion(s)`,
    );
    for (const c of report.unsandboxed)
      lines.push(`  unsandboxed task ${c.task} → ${c.to} in ${short(c.commit)} (${c.session})`);
  }
  if (report.beforeAdoption.length > 0) {
    lines.push(`Before adoption (not checked): ${report.beforeAdoption.length} completion(s)`);
    for (const c of report.beforeAdoption) lines.push(`  task ${c.task} → ${c.to} in ${short(c.commit)}`);
  }
  return lines.join("\n");
}
