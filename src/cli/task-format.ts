// side doors: the fast read path (task list, show, status) loads only the modules it reads with; a barrel would bring the store's writers and zod.
import type { TaskRow, TaskView } from "../state/index.js";
import { statusToMarker } from "../state/task-status.js";

/**
 * `task list` and `task show` as text. Free of the store's code: the fast read path (cli/fast-read.ts)
 * prints them without loading it.
 */
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
