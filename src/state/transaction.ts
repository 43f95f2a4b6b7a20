import type { BatonConfig } from "../config/index.js";
import {
  FileFormatError,
  formatIssues,
  isCanonical,
  isCanonicalValue,
  isoTimestamp,
  type JsonDocument,
  renderJsonDocument,
  validationIssues,
} from "../shared/index.js";
import { isKnownCanonical } from "./format-hint.js";
import { stateForWrite } from "./irregular-state.js";
import type { FileWrite, FolderMove } from "./journal.js";
import {
  type LoadedArchive,
  type LoadedErrors,
  type LoadedState,
  loadArchive,
  loadErrors,
} from "./load-store.js";
import { firstFreeNumber } from "./numbering.js";
import type { SpecsPaths } from "./paths.js";
import { isTaskEntry } from "./schema-fast.js";
import type { StoreContext } from "./store-context.js";
import { TaskEntry } from "./store-schema.js";
import { entries, findEntry, renderTodo, type TodoDocument, type TodoEntry } from "./todo-document.js";
import { frontmatterNextNumber, setFrontmatterNextNumber } from "./todo-frontmatter.js";
import { checkTodoGuards } from "./todo-guards.js";

/**
 * One mutation of the store, run by `mutateStore` under the specs lock. Every change goes through it:
 * edit `state`, `todo`, `archive()`, `errors()` and queue folder moves; the store validates and writes
 * them all together when the callback returns, or writes nothing if it throws.
 */
export class Transaction {
  readonly now: Date;
  readonly timestamp: string;
  readonly state: LoadedState;
  readonly todo: TodoDocument;
  readonly moves: FolderMove[] = [];
  readonly extraWrites = new Map<string, string>();
  readonly deletes = new Set<string>();
  /** Archive entries taken out on purpose (recover); any other disappearance aborts the write. */
  readonly releasedArchiveEntries = new Set<object>();
  private archiveCache: LoadedArchive | undefined;
  private errorsCache: LoadedErrors | undefined;
  readonly stateCanonical: boolean;

  constructor(
    readonly ctx: StoreContext,
    state: LoadedState,
    todo: TodoDocument,
  ) {
    this.now = new Date();
    this.timestamp = isoTimestamp(this.now);
    this.state = state;
    this.todo = todo;
    this.stateCanonical =
      !state.exists ||
      isKnownCanonical(ctx.paths.internalDir, ctx.paths.state) ||
      (state.canonical ?? isCanonicalValue(state.doc));
  }

  get config(): BatonConfig {
    return this.ctx.config;
  }

  get paths(): SpecsPaths {
    return this.ctx.paths;
  }

  get tasks(): TaskEntry[] {
    return this.state.tasks;
  }

  findTask(number: number): TaskEntry | undefined {
    return this.state.tasks.find((t) => t.project_number === number);
  }

  findTodoEntry(number: number): TodoEntry | undefined {
    return findEntry(this.todo, number);
  }

  archive(): LoadedArchive {
    this.archiveCache ??= loadArchive(this.paths);
    return this.archiveCache;
  }

  get archiveLoaded(): boolean {
    return this.archiveCache !== undefined;
  }

  errors(): LoadedErrors {
    this.errorsCache ??= loadErrors(this.paths);
    return this.errorsCache;
  }

  moveFolder(from: string, to: string): void {
    this.moves.push({ from, to });
  }

  /** Writes another file under specs/ (CHANGE_LOG.md, ROAD_MAP.md) in the same atomic commit. */
  writeFile(path: string, content: string): void {
    this.extraWrites.set(path, content);
  }

  /** Removes a file in the same atomic commit (a no-op when it does not exist). */
  deleteFile(path: string): void {
    this.extraWrites.delete(path);
    this.deletes.add(path);
  }

  /** Irregular entries `doctor --fix` repairs in this write (each written as its repair). */
  readonly repaired = new Set<TaskEntry>();
  readonly repairedEntries = new Set<TodoEntry>();

  /** Validates the result and renders every changed file. */
  async render(): Promise<FileWrite[]> {
    this.validateState();
    const writes: FileWrite[] = [];
    const value = { ...this.state.doc.value, active_projects: stateForWrite(this.state, this.repaired) };
    const stateText = await renderJsonDocument(this.state.doc, value, this.stateCanonical);
    if (stateText !== this.state.doc.text) writes.push({ path: this.paths.state, content: stateText });
    this.validateTodo();
    checkTodoGuards(this.todo, this.repairedEntries);
    const todoText = renderTodo(this.todo);
    if (todoText !== this.todo.source) writes.push({ path: this.paths.todo, content: todoText });
    if (this.archiveCache) {
      this.validateArchive(this.archiveCache);
      const text = await renderDoc(this.archiveCache.doc, this.archiveCache.exists);
      if (text !== this.archiveCache.doc.text) writes.push({ path: this.paths.archiveState, content: text });
    }
    if (this.errorsCache) {
      const text = await renderDoc(this.errorsCache.doc, this.errorsCache.exists);
      if (text !== this.errorsCache.doc.text) writes.push({ path: this.paths.errors, content: text });
    }
    for (const [path, content] of this.extraWrites) writes.push({ path, content });
    return writes;
  }

  private validateState(): void {
    const seen = new Set<number>();
    for (const [index, task] of this.state.tasks.entries()) {
      const issues =
        isTaskEntry(task) || this.state.guards.has(task) ? null : validationIssues(TaskEntry, task);
      if (issues) {
        throw new FileFormatError(
          "STATE_SCHEMA",
          this.paths.state,
          `refusing to write ${this.paths.state}: active_projects[${index}]: ${formatIssues(issues)}`,
        );
      }
      if (seen.has(task.project_number)) {
        throw new FileFormatError(
          "DUPLICATE_TASK",
          this.paths.state,
          `refusing to write ${this.paths.state}: task ${task.project_number} would appear twice`,
        );
      }
      seen.add(task.project_number);
    }
    // The two copies of the next number are kept equal; after drift the higher one wins, moved past any
    // number a live task holds (never reuse a number; numbering may restart after a vault, numbering.ts).
    for (const entry of entries(this.todo)) seen.add(entry.number);
    for (const held of this.state.held)
      if (held.irregularity.task !== undefined) seen.add(held.irregularity.task);
    const archived = this.archiveCache
      ? new Set(this.archiveCache.entries.map((e) => e.project_number))
      : new Set<number>();
    const next = firstFreeNumber(
      Math.max(this.state.doc.value.next_project_number, frontmatterNextNumber(this.todo) ?? 0),
      (n) => seen.has(n) || archived.has(n),
    );
    this.state.doc.value.next_project_number = next;
    if (frontmatterNextNumber(this.todo) !== next) setFrontmatterNextNumber(this.todo, next);
  }

  private validateTodo(): void {
    const seen = new Set<number>();
    for (const entry of entries(this.todo)) {
      if (seen.has(entry.number)) {
        throw new FileFormatError(
          "DUPLICATE_TASK",
          this.paths.todo,
          `refusing to write ${this.paths.todo}: task ${entry.number} would appear twice`,
          { hint: "`baton doctor` shows how TODO.md and state.json differ; nothing was written." },
        );
      }
      seen.add(entry.number);
    }
  }

  private validateArchive(archive: LoadedArchive): void {
    if (!archive.exists) return;
    const now = new Set<object>(archive.entries);
    const expected = archive.original.length - this.releasedArchiveEntries.size;
    const kept = archive.original.filter((e) => !this.releasedArchiveEntries.has(e) && now.has(e)).length;
    if (kept < expected || ![...this.releasedArchiveEntries].every((e) => !now.has(e))) {
      throw new FileFormatError(
        "STATE_SCHEMA",
        this.paths.archiveState,
        `refusing to write ${this.paths.archiveState}: it would lose archive entries (${expected} expected, ${kept} present)`,
      );
    }
  }
}

/** A file that did not exist is created only when something was put into it, never by merely reading it. */
async function renderDoc(doc: JsonDocument, exists: boolean): Promise<string> {
  if (!exists && JSON.stringify(doc.value) === JSON.stringify(JSON.parse(doc.defaultText ?? "null"))) {
    return doc.text;
  }
  return renderJsonDocument(doc, doc.value, !exists || isCanonical(doc));
}
