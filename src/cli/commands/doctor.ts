import { loadConfig } from "../../config/index.js";
import { type Finding, fixFindings, runDoctorChecks, storeContext } from "../../state/index.js";

export interface DoctorResult {
  findings: Finding[];
  fixed: Finding[];
  /** Findings still present after `--fix` (or all of them without it). */
  remaining: Finding[];
  healthy: boolean;
}

export async function doctor(options: { repo: string; fix?: boolean | undefined }): Promise<DoctorResult> {
  const ctx = storeContext(await loadConfig(options.repo));
  const findings = runDoctorChecks(ctx);
  if (!options.fix) {
    return {
      findings,
      fixed: [],
      remaining: findings,
      healthy: !findings.some((f) => f.severity === "error"),
    };
  }
  const report = await fixFindings(ctx, findings);
  const remaining = runDoctorChecks(ctx);
  return {
    findings,
    fixed: report.fixed,
    remaining,
    healthy: !remaining.some((f) => f.severity === "error"),
  };
}
