import { describeIrregularity } from "./irregularity.js";
import { titleFromSlug } from "./naming.js";
import type { Snapshot } from "./store-context.js";
import type { TaskEntry } from "./store-schema.js";
import { taskTypeOf } from "./task-type.js";
import { entries, entryStatus, type TodoDocument, type TodoEntry } from "./todo-document.js";
import { getEntryDescription } from "./todo-entry.js";

export interface ArtifactView {
  path: string;
  type: string;
  summary?: string;
}

/** What `task list` and `task show` print: state.json fields plus the title that lives only in TODO.md. */
export interface TaskView {
  number: number;
  title: string;
  slug: string;
  status: string;
  /** The TODO.md marker, when it disagrees with state.json (`baton doctor` repairs it). */
  todoStatus?: string;
  language: string;
  priority?: string;
  effort?: string;
  description?: string;
  dependencies: Array<number | string>;
  parent?: number;
  subtasks: number[];
  created?: string;
  lastUpdated?: string;
  sessionId?: string;
  artifacts: ArtifactView[];
  /** What is irregular about the task's entries (`file:line: …`); Baton will not change them until fixed. */
  irregular?: string[];
}

/** Older entries use `report` / `research_report` for research (format reference 2.3). */
export function normalizeArtifactType(type: string | undefined): string {
  if (type === "report" || type === "research_report") return "research";
  return type ?? "unknown";
}

function artifactViews(task: TaskEntry): ArtifactView[] {
  return (task.artifacts ?? []).map((a) => {
    if (typeof a === "string") return { path: a, type: normalizeArtifactType(undefined) };
    const view: ArtifactView = { path: a.path, type: normalizeArtifactType(a.type) };
    if (a.summary !== undefined) view.summary = a.summary;
    return view;
  });
}

export function todoIndex(todo: TodoDocument): Map<number, TodoEntry> {
  const map = new Map<number, TodoEntry>();
  for (const e of entries(todo)) map.set(e.number, e);
  return map;
}

export function taskView(task: TaskEntry, entry: TodoEntry | undefined, withDetail = false): TaskView {
  const view: TaskView = {
    number: task.project_number,
    title: entry?.title || titleFromSlug(task.project_name),
    slug: task.project_name,
    status: task.status,
    language: taskTypeOf(task) ?? "general",
    dependencies:
      task.dependencies ?? (Array.isArray(task["depends_on"]) ? (task["depends_on"] as number[]) : []),
    subtasks: task.subtasks ?? [],
    artifacts: artifactViews(task),
  };
  const todoStatus = entry ? entryStatus(entry) : undefined;
  if (todoStatus !== undefined && todoStatus !== task.status) view.todoStatus = todoStatus;
  if (task.priority) view.priority = task.priority;
  if (task.effort !== undefined) view.effort = String(task.effort);
  const description = task.description ?? (withDetail && entry ? getEntryDescription(entry) : undefined);
  if (description !== undefined) view.description = description;
  if (typeof task.parent_task === "number") view.parent = task.parent_task;
  if (task.created) view.created = task.created;
  if (task.last_updated) view.lastUpdated = task.last_updated;
  if (task.session_id) view.sessionId = task.session_id;
  return view;
}

export function taskViews(snapshot: Snapshot): TaskView[] {
  const index = todoIndex(snapshot.todo);
  const views = snapshot.state.tasks.map((t) => taskView(t, index.get(t.project_number)));
  return markIrregular(snapshot, views);
}

/** Adds to each view what is irregular about its task's entries (a regular store costs one check). */
export function markIrregular<V extends TaskView>(snapshot: Snapshot, views: V[]): V[] {
  const all = [...snapshot.state.irregular, ...snapshot.todo.irregular];
  if (all.length === 0) return views;
  const byTask = new Map<number, string[]>();
  for (const irregularity of all) {
    if (irregularity.task === undefined) continue;
    byTask.set(irregularity.task, [
      ...(byTask.get(irregularity.task) ?? []),
      describeIrregularity(irregularity),
    ]);
  }
  for (const view of views) {
    const found = byTask.get(view.number);
    if (found) view.irregular = found;
  }
  return views;
}
