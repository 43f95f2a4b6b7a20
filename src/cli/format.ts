import type { ArchiveResult, ErrorEntry, Finding } from "../state/index.js";
import type { DoctorResult } from "./commands/doctor.js";
import { formatConventions } from "./conventions-format.js";

export function formatArchive(result: ArchiveResult & { dryRun: boolean }): string {
  const verb = result.dryRun ? "Would archive" : "Archived";
  const lines: string[] = [];
  if (result.autoCompleted.length > 0)
    lines.push(`Auto-completed expanded tasks: ${result.autoCompleted.join(", ")}`);
  lines.push(
    result.archived.length === 0
      ? "No completed or abandoned tasks to archive."
      : `${verb} ${result.archived.length} task(s): ${result.archived.map((a) => `${a.number} (${a.status})`).join(", ")}`,
  );
  for (const o of result.orphans)
    lines.push(
      `${result.dryRun ? "Would record" : "Recorded"} orphan folder ${o.folder} as task ${o.number}`,
    );
  for (const m of result.misplaced)
    lines.push(`${result.dryRun ? "Would move" : "Moved"} misplaced folder ${m.folder} into the archive`);
  if (result.changeLogEntries > 0)
    lines.push(
      `CHANGE_LOG.md: ${result.changeLogEntries} entr${result.changeLogEntries === 1 ? "y" : "ies"}`,
    );
  if (result.roadMapItems > 0) lines.push(`ROAD_MAP.md: ${result.roadMapItems} item(s) annotated`);
  return lines.join("\n");
}

function formatFinding(f: Finding): string {
  return `  ${f.severity === "error" ? "error  " : "warning"} ${f.code}: ${f.message}\n          fix: ${f.fix}${f.fixable ? "" : " (manual)"}`;
}

/** Findings of one code and severity beyond this many are shown as a count and the first few. */
const SHOWN_PER_CODE = 3;

/**
 * The findings, those of one code together: a repository with 95 tasks of one irregularity gets one
 * block naming the count and three of them, not 95 lines that hide every other finding.
 */
function formatFindings(findings: readonly Finding[]): string[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.severity} ${f.code}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.values()].flatMap((group) => {
    if (group.length <= SHOWN_PER_CODE) return group.map(formatFinding);
    const [first] = group;
    return [
      `  ${first?.severity === "error" ? "error  " : "warning"} ${first?.code}: ${group.length} findings, the first ${SHOWN_PER_CODE}:`,
      ...group.slice(0, SHOWN_PER_CODE).map((f) => `    - ${f.message}`),
      `    … and ${group.length - SHOWN_PER_CODE} more (\`baton doctor --json\` lists every one)`,
      `          fix: ${first?.fix}${first?.fixable ? "" : " (manual)"}`,
    ];
  });
}

export function formatDoctor(result: DoctorResult, fixing: boolean): string {
  const learned = formatConventions(result.conventions);
  const tail = learned.length > 0 ? ["", ...learned] : [];
  if (result.findings.length === 0)
    return ["All invariants hold: state.json and TODO.md agree.", ...tail].join("\n");
  const lines: string[] = [];
  lines.push(`Found ${result.findings.length} problem(s):`, ...formatFindings(result.findings));
  if (fixing) {
    lines.push("", `Fixed ${result.fixed.length}:`, ...result.fixed.map((f) => `  ${f.code}: ${f.message}`));
    if (result.remaining.length > 0)
      lines.push("", `Still present (${result.remaining.length}):`, ...formatFindings(result.remaining));
  } else if (result.findings.some((f) => f.fixable)) {
    lines.push(
      "",
      `Run \`baton doctor --fix\` to repair the ${result.findings.filter((f) => f.fixable).length} fixable one(s).`,
    );
  }
  return [...lines, ...tail].join("\n");
}

export function formatErrors(result: { total: number; errors: ErrorEntry[] }): string {
  if (result.errors.length === 0) return `No matching errors (${result.total} in errors.json).`;
  const lines = result.errors.map((e) => {
    const c = e.context ?? {};
    const where = [c.task != null ? `task ${c.task}` : "", c.checkpoint ?? "", c.session_id ?? ""]
      .filter(Boolean)
      .join(" · ");
    return `${e.timestamp ?? "?"}  ${(e.severity ?? "").padEnd(8)} ${e.type ?? "?"}  [${e.fix_status ?? "unfixed"}]${where ? `  ${where}` : ""}\n    ${e.message ?? ""}`;
  });
  lines.push("", `${result.errors.length} of ${result.total} shown.`);
  return lines.join("\n");
}
