import type { ArchiveResult, ErrorEntry, Finding, TaskRow, TaskView } from "../state/index.js";
import { statusToMarker } from "../state/index.js";
import { formatConventions } from "./commands/conventions.js";
import type { DoctorResult } from "./commands/doctor.js";

const MAX_TITLE = 70;

function truncate(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

export function formatTaskList(views: readonly TaskRow[]): string {
  if (views.length === 0) return "No tasks.";
  // Plain loops: this runs over every task of a 10,000-task repository on each `task list`.
  const header = ["#", "STATUS", "LANGUAGE"];
  const widths = header.map((h) => h.length);
  const rows: Array<[string, string, string, string]> = new Array(views.length);
  let drift = false;
  let irregular = false;
  for (let i = 0; i < views.length; i++) {
    const v = views[i]!;
    if (v.irregular) irregular = true;
    const row: [string, string, string, string] = [
      String(v.number) + (v.irregular ? "?" : ""),
      statusToMarker(v.status) + (v.todoStatus ? " !" : ""),
      v.language,
      truncate(v.title, MAX_TITLE),
    ];
    if (v.todoStatus) drift = true;
    for (let c = 0; c < 3; c++) if (row[c]!.length > widths[c]!) widths[c] = row[c]!.length;
    rows[i] = row;
  }
  const line = (a: string, b: string, c: string, d: string) =>
    `${a.padEnd(widths[0]!)}  ${b.padEnd(widths[1]!)}  ${c.padEnd(widths[2]!)}  ${d}`.trimEnd();
  const out = [line("#", "STATUS", "LANGUAGE", "TITLE")];
  for (const r of rows) out.push(line(r[0], r[1], r[2], r[3]));
  if (drift) out.push("", "! TODO.md shows another status; `baton doctor --fix` repairs it.");
  if (irregular) {
    out.push(
      "",
      "? an irregular entry: read as well as Baton can, and left unchanged until fixed; `baton doctor` says how.",
    );
  }
  return out.join("\n");
}

export function formatTask(view: TaskView & { raw?: unknown }): string {
  const lines = [`Task ${view.number}: ${view.title}`];
  const field = (name: string, value: string | undefined) => {
    if (value !== undefined && value !== "") lines.push(`  ${`${name}:`.padEnd(14)}${value}`);
  };
  field(
    "Status",
    statusToMarker(view.status) + (view.todoStatus ? ` (TODO.md: ${statusToMarker(view.todoStatus)})` : ""),
  );
  field("Language", view.language);
  field("Priority", view.priority);
  field("Effort", view.effort);
  field("Slug", view.slug);
  field("Dependencies", view.dependencies.join(", "));
  field("Parent", view.parent?.toString());
  field("Subtasks", view.subtasks.join(", "));
  field("Created", view.created);
  field("Updated", view.lastUpdated);
  field("Session", view.sessionId);
  if (view.artifacts.length > 0) {
    lines.push("  Artifacts:");
    for (const a of view.artifacts)
      lines.push(
        `    ${a.type.padEnd(10)}${a.path}${a.summary ? `\n              ${truncate(a.summary, 100)}` : ""}`,
      );
  }
  if (view.description) lines.push("", view.description);
  if (view.irregular) {
    lines.push("", "Irregular (Baton will not change this task until fixed; `baton doctor` says how):");
    for (const found of view.irregular) lines.push(`  ${found}`);
  }
  return lines.join("\n");
}

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

export function formatDoctor(result: DoctorResult, fixing: boolean): string {
  const learned = formatConventions(result.conventions);
  const tail = learned.length > 0 ? ["", ...learned] : [];
  if (result.findings.length === 0)
    return ["All invariants hold: state.json and TODO.md agree.", ...tail].join("\n");
  const lines: string[] = [];
  lines.push(`Found ${result.findings.length} problem(s):`, ...result.findings.map(formatFinding));
  if (fixing) {
    lines.push("", `Fixed ${result.fixed.length}:`, ...result.fixed.map((f) => `  ${f.code}: ${f.message}`));
    if (result.remaining.length > 0)
      lines.push("", `Still present (${result.remaining.length}):`, ...result.remaining.map(formatFinding));
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
