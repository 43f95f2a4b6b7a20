import { EditableLines, isoDate } from "../shared/index.js";
import { readText } from "./load-store.js";
import type { Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";

interface Finished {
  task: TaskEntry;
  title: string;
}

function summaryLink(task: TaskEntry): string | undefined {
  const summaries = (task.artifacts ?? [])
    .map((a) => (typeof a === "string" ? { path: a, type: "" } : a))
    .filter((a) => a.type === "summary" || /summaries\//.test(a.path));
  return summaries[summaries.length - 1]?.path;
}

/**
 * CHANGE_LOG.md, when the repository keeps one: one line per completed task under a `### YYYY-MM-DD`
 * heading, newest date first (format reference 7). Abandoned tasks are not changes.
 */
export function updateChangeLog(tx: Transaction, finished: readonly Finished[]): number {
  const text = readText(tx.paths.changeLog);
  const completed = finished.filter((f) => f.task.status === "completed");
  if (text === null || completed.length === 0) return 0;
  const file = new EditableLines(text);
  for (const { task } of completed) {
    const lines = file.contents();
    const date = String(task.completed ?? task.last_updated ?? tx.timestamp).slice(0, 10);
    const link = summaryLink(task);
    const summary = typeof task["completion_summary"] === "string" ? task["completion_summary"] : "Completed";
    const line = `- **Task ${task.project_number}**: ${summary}${link ? ` [(details)](${link})` : ""}`;
    const header = `### ${date}`;
    const at = lines.indexOf(header);
    if (at === -1) {
      const older = lines.findIndex((l) => /^### \d{4}-\d{2}-\d{2}/.test(l) && l.slice(4, 14) < date);
      const changelog = lines.findIndex((l) => /^## Changelog/.test(l));
      const insertAt = older !== -1 ? older : changelog !== -1 ? changelog + 1 : lines.length;
      const block = [header, "", line, ""];
      if (older === -1 && changelog !== -1) block.unshift("");
      file.insert(insertAt, block);
    } else {
      let end = at + 1;
      while (end < lines.length && lines[end]!.trim() === "") end++;
      file.insert(end, [line]);
    }
  }
  tx.writeFile(tx.paths.changeLog, file.text());
  return completed.length;
}

/**
 * ROAD_MAP.md: tick `- [ ]` items that a completed task names in `roadmap_items` or that mention
 * `(Task N)`; note abandoned ones without ticking them. Lines already annotated are left alone.
 */
export function updateRoadMap(tx: Transaction, finished: readonly Finished[]): number {
  const text = readText(tx.paths.roadMap);
  if (text === null || finished.length === 0) return 0;
  const file = new EditableLines(text);
  const lines = file.contents();
  const date = isoDate(tx.now);
  let changed = 0;
  for (const { task } of finished) {
    const n = task.project_number;
    const items = Array.isArray(task["roadmap_items"])
      ? (task["roadmap_items"] as unknown[]).map(String)
      : [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!/^\s*- \[ \] /.test(line) || line.includes("*(Completed:") || line.includes("*(Task")) continue;
      const byItem = items.some((item) => item.trim() !== "" && line.includes(item.trim()));
      const byRef = line.includes(`(Task ${n})`);
      if (!byItem && !byRef) continue;
      if (task.status === "completed") {
        lines[i] = `${line.replace("- [ ] ", "- [x] ")} *(Completed: Task ${n}, ${date})*`;
        file.set(i, lines[i]!);
      } else {
        const reason = String(task["abandoned_reason"] ?? "abandoned").slice(0, 50);
        lines[i] = `${line} *(Task ${n} abandoned: ${reason})*`;
        file.set(i, lines[i]!);
      }
      changed++;
    }
  }
  if (changed > 0) tx.writeFile(tx.paths.roadMap, file.text());
  return changed;
}
