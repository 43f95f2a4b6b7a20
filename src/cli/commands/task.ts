import { loadConfig } from "../../config/index.js";
import { requireRepository, TaskNotFoundError, UsageError } from "../../shared/index.js";
import { addNotice } from "../../shared/notices.js";
import { present } from "../../shared/present.js";
import type { AbandonResult, ArchiveResult, RecoverResult, StatusChange } from "../../state/index.js";
import {
  abandonTasks,
  addTask,
  archiveFinished,
  changeStatus,
  editTask,
  expandTask,
  findEntry,
  loadArchive,
  markIrregular,
  mutateStore,
  parseTaskNumbers,
  previewStore,
  readSettledStore,
  readStoreSummary,
  readTaskDetail,
  recoverTasks,
  rememberOffsets,
  requireStore,
  requireStoreCheckedOut,
  type StoreContext,
  sessionActive,
  storeContext,
  type TaskRow,
  type TaskView,
  taskView,
  taskViews,
} from "../../state/index.js";

export interface RepoOptions {
  repo: string;
}

async function context(options: RepoOptions) {
  return storeContext(await loadConfig(options.repo));
}

function numbersFrom(specs: readonly string[]): number[] {
  try {
    const numbers = parseTaskNumbers(specs);
    if (numbers.length === 0) throw new RangeError("no task number given");
    return numbers;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function parseTaskNumber(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`"${value}" is not a task number`);
  return Number(value);
}

function parseDependencies(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "" || value.trim().toLowerCase() === "none") return [];
  return numbersFrom([value]);
}

export interface TaskAddOptions extends RepoOptions {
  title: string;
  description?: string | undefined;
  language?: string | undefined;
  priority?: string | undefined;
  effort?: string | undefined;
  depends?: string | undefined;
}

/** The task fields a command's options set (add and edit take the same ones). */
function taskFields(options: {
  title?: string | undefined;
  description?: string | undefined;
  language?: string | undefined;
  priority?: string | undefined;
  effort?: string | undefined;
  depends?: string | undefined;
}) {
  return {
    title: options.title,
    description: options.description,
    language: options.language,
    priority: options.priority,
    effort: options.effort,
    dependencies: parseDependencies(options.depends),
  };
}

export async function taskAdd(options: TaskAddOptions): Promise<TaskView> {
  const ctx = await context(options);
  if (!present(ctx.paths.state) && !present(ctx.paths.todo)) {
    // The first task creates the store: only where git can keep it.
    requireRepository(ctx.config.root, "a new task store there would be kept nowhere");
    await requireStoreCheckedOut(ctx);
  }
  return mutateStore(ctx, { command: `baton task add "${options.title}"`, creates: true }, (tx) => {
    // Said by the one writer that starts the store (decided under the lock), never silently.
    if (!tx.state.exists && tx.todo.source === "") addNotice(`started a task store in ${ctx.paths.dir}`);
    const task = addTask(tx, { ...taskFields(options), title: options.title });
    return taskView(task, findEntry(tx.todo, task.project_number), true);
  });
}

export interface TaskListOptions extends RepoOptions {
  status?: string[] | undefined;
  language?: string[] | undefined;
}

/** The filters of `task list`, applied alike to full views (--json) and to rows. */
function listFilter(options: TaskListOptions) {
  const statuses = options.status
    ?.flatMap((s) => s.split(","))
    .map((s) => s.trim().toLowerCase().replace(/[ -]/g, "_"));
  const languages = options.language?.flatMap((s) => s.split(",")).map((s) => s.trim());
  return (v: { status: string; language: string }) =>
    (!statuses || statuses.includes(v.status)) && (!languages || languages.includes(v.language));
}

/** `task list --json`: every field of each active task. */
export async function taskList(options: TaskListOptions): Promise<TaskView[]> {
  const ctx = await context(options);
  return taskViews(await readSettledStore(ctx)).filter(listFilter(options));
}

/** `task list`: what its table prints, from the store's summary (parsed again only after a change). */
export async function taskRows(options: TaskListOptions): Promise<TaskRow[]> {
  const ctx = await context(options);
  return (await readStoreSummary(ctx)).rows.filter(listFilter(options));
}

export async function taskShow(
  options: RepoOptions & { number: string },
): Promise<TaskView & { raw: unknown }> {
  const ctx = await context(options);
  const number = parseTaskNumber(options.number);
  requireStore(ctx);
  // One entry read from where the store summary says it is, while the files are unchanged.
  const detail = sessionActive(ctx.paths) ? null : readTaskDetail(ctx, number);
  if (detail) return { ...taskView(detail.task, detail.entry, true), raw: detail.task };
  const snapshot = await readSettledStore(ctx);
  rememberOffsets(ctx, snapshot);
  const task = snapshot.state.tasks.find((t) => t.project_number === number);
  if (!task) throw notActive(ctx, number);
  const [view] = markIrregular(snapshot, [taskView(task, findEntry(snapshot.todo, number), true)]);
  return { ...view!, raw: snapshot.state.guards.get(task)?.raw ?? task };
}

/** The error for a number that is not an active task: archived ones say how to bring them back. */
export function notActive(ctx: StoreContext, number: number): TaskNotFoundError {
  const archived = loadArchive(ctx.paths).entries.find((e) => e.project_number === number);
  if (archived) {
    return new TaskNotFoundError(number, ctx.paths.state, {
      message: `task ${number} is archived (status ${archived.status ?? "unknown"})`,
      hint: `Bring it back with \`baton task recover ${number}\`.`,
    });
  }
  return new TaskNotFoundError(number, ctx.paths.state, {
    message: `task ${number} does not exist`,
    hint: "`baton task list` shows active tasks.",
  });
}

export interface TaskEditOptions extends RepoOptions {
  number: string;
  title?: string | undefined;
  description?: string | undefined;
  language?: string | undefined;
  priority?: string | undefined;
  effort?: string | undefined;
  depends?: string | undefined;
  force?: boolean | undefined;
  insideSession?: boolean | undefined;
}

export async function taskEdit(options: TaskEditOptions): Promise<TaskView> {
  const ctx = await context(options);
  const number = parseTaskNumber(options.number);
  return mutateStore(ctx, { command: `baton task edit ${number}` }, (tx) => {
    const task = editTask(tx, number, taskFields(options), {
      force: options.force,
      insideSession: options.insideSession,
    });
    return taskView(task, findEntry(tx.todo, number), true);
  });
}

export interface TaskStatusOptions extends RepoOptions {
  number: string;
  status: string;
  force?: boolean | undefined;
  insideSession?: boolean | undefined;
  reason?: string | undefined;
  summary?: string | undefined;
}

export async function taskStatus(options: TaskStatusOptions): Promise<StatusChange> {
  const ctx = await context(options);
  const number = parseTaskNumber(options.number);
  const target = options.status
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/[ -]/g, "_");
  return mutateStore(ctx, { command: `baton task status ${number} ${target}` }, (tx) =>
    changeStatus(tx, number, target, {
      force: options.force ?? false,
      insideSession: options.insideSession,
      reason: options.reason,
      summary: options.summary,
    }),
  );
}

export async function taskAbandon(
  options: RepoOptions & {
    numbers: string[];
    reason?: string | undefined;
    force?: boolean | undefined;
    insideSession?: boolean | undefined;
  },
): Promise<AbandonResult> {
  const ctx = await context(options);
  const numbers = numbersFrom(options.numbers);
  return mutateStore(ctx, { command: `baton task abandon ${numbers.join(",")}` }, (tx) =>
    abandonTasks(tx, numbers, {
      reason: options.reason,
      force: options.force ?? false,
      insideSession: options.insideSession,
    }),
  );
}

export async function taskRecover(options: RepoOptions & { numbers: string[] }): Promise<RecoverResult> {
  const ctx = await context(options);
  const numbers = numbersFrom(options.numbers);
  return mutateStore(ctx, { command: `baton task recover ${numbers.join(",")}` }, (tx) =>
    recoverTasks(tx, numbers),
  );
}

export async function taskExpand(
  options: RepoOptions & {
    number: string;
    subtask: string[];
    force?: boolean | undefined;
    insideSession?: boolean | undefined;
  },
): Promise<{ parent: number; subtasks: number[] }> {
  const ctx = await context(options);
  const number = parseTaskNumber(options.number);
  return mutateStore(ctx, { command: `baton task expand ${number}` }, (tx) =>
    expandTask(
      tx,
      number,
      options.subtask.map((title) => ({ title })),
      { force: options.force, insideSession: options.insideSession },
    ),
  );
}

export async function archive(
  options: RepoOptions & { dryRun?: boolean | undefined },
): Promise<ArchiveResult & { dryRun: boolean }> {
  const ctx = await context(options);
  // A dry run computes the same transaction on the files as read, without the lock and without writing.
  if (options.dryRun) return { ...(await previewStore(ctx, archiveFinished)), dryRun: true };
  const result = await mutateStore(ctx, { command: "baton archive" }, archiveFinished);
  return { ...result, dryRun: false };
}
