import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { readObjects } from "../../shared/git-objects.js";
import { parseJsonDocument, renderJsonDocument } from "../../shared/index.js";
import {
  entries,
  parseTodo,
  renderTodo,
  type StoreContext,
  sealedContent,
  setFrontmatterNextNumber,
} from "../../state/index.js";
import type { BatonFile } from "./git-commit.js";

/**
 * state.json and TODO.md as an operation's commit carries them: HEAD's versions with only this task's
 * entries taken from what Baton last wrote. Another task's uncommitted change — a failed run's
 * `researching`, a task added since — stays in the work tree for its own commit instead of riding under
 * this task's session trailer. Without a HEAD version (a first commit) the files go in as written.
 */
export async function taskOnlyStoreFiles(ctx: StoreContext, taskNumber: number): Promise<BatonFile[]> {
  const root = ctx.config.root;
  const current = (path: string) => sealedContent(ctx.paths, path) ?? readOrNull(path);
  const state = current(ctx.paths.state);
  const todo = current(ctx.paths.todo);
  const [headState = null, headTodo = null] = await headVersions(root, [ctx.paths.state, ctx.paths.todo]);
  let composedState: string | null = state;
  let next: number | null = null;
  if (state !== null && headState !== null) {
    const composed = await composeState(ctx.paths.state, headState, state, taskNumber);
    composedState = composed?.text ?? state;
    next = composed?.next ?? null;
  }
  const composedTodo =
    todo !== null && headTodo !== null
      ? (composeTodo(ctx.paths.todo, headTodo, todo, taskNumber, next) ?? todo)
      : todo;
  const errors = readOrNull(ctx.paths.errors);
  const [headErrors = null] = await headVersions(root, [ctx.paths.errors]);
  const composedErrors =
    errors === null
      ? null
      : ((await composeErrors(ctx.paths.errors, headErrors, errors, taskNumber)) ?? errors);
  return [
    { path: ctx.paths.state, content: composedState, written: state },
    { path: ctx.paths.todo, content: composedTodo, written: todo },
    { path: ctx.paths.errors, content: composedErrors, written: errors },
  ];
}

type ErrorShape = { id?: unknown; context?: { task?: unknown } | null };

/**
 * HEAD's errors.json with this task's entries as written now (and those of no task): another task's error,
 * from a run that failed, waits for that task's own commit instead of riding under this session.
 */
async function composeErrors(
  path: string,
  headText: string | null,
  nowText: string,
  task: number,
): Promise<string | null> {
  try {
    const ours = (e: ErrorShape) => e?.context?.task == null || Number(e.context.task) === task;
    // Without a HEAD version (the first error ever), the file as written less other tasks' entries.
    const doc = parseJsonDocument<{ errors?: unknown }>(path, headText ?? nowText);
    const head =
      headText === null && Array.isArray(doc.value.errors)
        ? { ...doc.value, errors: (doc.value.errors as ErrorShape[]).filter(ours) }
        : doc.value;
    const now = JSON.parse(nowText) as { errors?: unknown };
    if (!Array.isArray(head.errors) || !Array.isArray(now.errors)) return null;
    const nowById = new Map((now.errors as ErrorShape[]).map((e) => [e?.id, e]));
    const kept = (head.errors as ErrorShape[]).map((e) =>
      ours(e) && nowById.has(e?.id) ? nowById.get(e?.id) : e,
    );
    const known = new Set(kept.map((e) => e?.id));
    const added = (now.errors as ErrorShape[]).filter((e) => ours(e) && !known.has(e?.id));
    if (
      headText !== null &&
      added.length === 0 &&
      kept.every((e, i) => e === (head.errors as ErrorShape[])[i])
    )
      return headText;
    return await renderJsonDocument(doc, { ...head, errors: [...kept, ...added] }, false);
  } catch {
    return null;
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Each file's text at HEAD (null where HEAD has none, or git failed), read by one git process. */
async function headVersions(root: string, paths: string[]): Promise<(string | null)[]> {
  const names = paths.map((path) => `HEAD:${relative(root, path).split(sep).join("/")}`);
  const objects = await readObjects(root, names);
  return names.map((name) => objects?.get(name)?.bytes.toString("utf8") ?? null);
}

interface StateShape {
  next_project_number?: unknown;
  active_projects?: unknown;
}

type Entry = { project_number?: unknown };

/** HEAD's state.json with this task's entry as written now (added, replaced or removed), nothing else. */
async function composeState(
  path: string,
  headText: string,
  nowText: string,
  task: number,
): Promise<{ text: string; next: number } | null> {
  try {
    const head = parseJsonDocument<StateShape>(path, headText);
    const now = JSON.parse(nowText) as StateShape;
    if (!Array.isArray(head.value.active_projects) || !Array.isArray(now.active_projects)) return null;
    const list = [...(head.value.active_projects as Entry[])];
    const nowList = now.active_projects as Entry[];
    const mine = nowList.find((e) => e?.project_number === task);
    const at = list.findIndex((e) => e?.project_number === task);
    if (mine && at !== -1) list[at] = mine;
    else if (mine) list.splice(Math.min(nowList.indexOf(mine), list.length), 0, mine);
    else if (at !== -1) list.splice(at, 1);
    // HEAD's next number, moved past this task's only when this commit adds it at or beyond that number:
    // never "one above the highest task", which a repository whose numbers wrap (82 beside 998) is not.
    const headNext = typeof head.value.next_project_number === "number" ? head.value.next_project_number : 1;
    const added = mine !== undefined && at === -1 && typeof mine.project_number === "number";
    const next =
      added && (mine.project_number as number) >= headNext ? (mine.project_number as number) + 1 : headNext;
    const value = { ...head.value, next_project_number: next, active_projects: list };
    return { text: await renderJsonDocument(head, value, false), next };
  } catch {
    return null;
  }
}

/** HEAD's TODO.md with this task's entry as written now, and the next number state.json's commit holds. */
function composeTodo(
  path: string,
  headText: string,
  nowText: string,
  task: number,
  next: number | null,
): string | null {
  try {
    const head = parseTodo(path, headText);
    const now = parseTodo(path, nowText);
    const mine = [...entries(now)].find((e) => e.number === task);
    const at = head.segments.findIndex((s) => s.kind === "entry" && s.number === task);
    if (mine && at !== -1) head.segments[at] = mine;
    else if (mine) {
      const firstEntry = head.segments.findIndex((s) => s.kind === "entry");
      head.segments.splice(firstEntry === -1 ? head.segments.length : firstEntry, 0, mine);
    } else if (at !== -1) head.segments.splice(at, 1);
    if (next !== null && head.frontmatter) setFrontmatterNextNumber(head, next);
    return renderTodo(head);
  } catch {
    return null;
  }
}
