import { existsSync } from "node:fs";
import { relative } from "node:path";
import type { BatonConfig } from "../config/config-schema.js";
import {
  FileFormatError,
  formatIssues,
  isCanonical,
  isCanonicalValue,
  isoTimestamp,
  type JsonDocument,
  renderJsonDocument,
  StoreChangedError,
  validationIssues,
} from "../shared/index.js";
import { addNotice } from "../shared/notices.js";
import { uncommittedChanges } from "./committed.js";
import { isKnownCanonical, rememberCanonical } from "./format-hint.js";
import { commitFiles, type FileWrite, type FolderMove, recoverInterruptedCommit } from "./journal.js";
import {
  type LoadedArchive,
  type LoadedErrors,
  type LoadedState,
  loadArchive,
  loadErrors,
  loadState,
  loadTodo,
} from "./load-store.js";
import { acquireLock, ensureInternalDir } from "./lock.js";
import { firstFreeNumber } from "./numbering.js";
import { sessionActive } from "./open-checkpoint.js";
import { type SpecsPaths, specsPaths } from "./paths.js";
import { isTaskEntry } from "./schema-fast.js";
import { adoptable, describeForeignChanges, findForeignChanges, restoreSealed, sealWrites } from "./seal.js";
import { TaskEntry } from "./store-schema.js";
import {
  emptyTodo,
  entries,
  findEntry,
  frontmatterNextNumber,
  renderTodo,
  setFrontmatterNextNumber,
  type TodoDocument,
  type TodoEntry,
} from "./todo-document.js";

export interface StoreContext {
  config: BatonConfig;
  paths: SpecsPaths;
}

export function storeContext(config: BatonConfig): StoreContext {
  return { config, paths: specsPaths(config.specsDir) };
}

export interface Snapshot {
  state: LoadedState;
  todo: TodoDocument;
}

/** Reads state.json and TODO.md for a read-only command; malformed files raise a FileFormatError. */
export function readStore(ctx: StoreContext): Snapshot {
  const state = loadState(ctx.paths);
  const todo = loadTodo(ctx.paths) ?? emptyTodo(ctx.paths.todo, state.doc.value.next_project_number);
  return { state, todo };
}

/**
 * `readStore` for commands: a journal left by a write that crashed means state.json and TODO.md may
 * be half updated, so the reader first rolls it forward under the lock (a journal that belongs to a
 * write in flight is gone by the time the lock is free). Without a journal this costs one stat.
 */
export async function readSettledStore(ctx: StoreContext): Promise<Snapshot> {
  const interrupted = existsSync(ctx.paths.journal);
  // Inside a session a change Baton did not make is undone before anything reads the store.
  const foreign = !interrupted && sessionActive(ctx.paths) && findForeignChanges(ctx.paths).length > 0;
  if (interrupted || foreign) {
    const release = await acquireLock(ctx.paths.lock, {
      timeoutMs: ctx.config.lockTimeoutMs,
      command: "baton (read)",
    });
    try {
      recoverInterruptedCommit(ctx.paths.journal, [ctx.paths.dir, ctx.paths.archiveDir]);
      // In a session every foreign change is restored, so nothing is left to refuse.
      if (sessionActive(ctx.paths)) await settleForeignChanges(ctx, false);
    } finally {
      release();
    }
  }
  return readStore(ctx);
}

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
      isCanonicalValue(state.doc);
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

  /** Validates the result and renders every changed file. */
  async render(): Promise<FileWrite[]> {
    this.validateState();
    const writes: FileWrite[] = [];
    const stateText = await renderJsonDocument(this.state.doc, this.state.doc.value, this.stateCanonical);
    if (stateText !== this.state.doc.text) writes.push({ path: this.paths.state, content: stateText });
    this.validateTodo();
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
      const issues = isTaskEntry(task) ? null : validationIssues(TaskEntry, task);
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

/**
 * A mutation computed on the files as read and validated as a write would be, but neither locked nor
 * written: `--dry-run` works on a read-only specs/ and never waits for another writer.
 */
export async function previewStore<R>(
  ctx: StoreContext,
  mutate: (tx: Transaction) => R | Promise<R>,
): Promise<R> {
  const snapshot = await readSettledStore(ctx);
  const tx = new Transaction(ctx, snapshot.state, snapshot.todo);
  const result = await mutate(tx);
  await tx.render();
  return result;
}

/**
 * A change to a sealed file that Baton did not make. Inside a Claude Code session (this command runs in
 * one, or an in-session checkpoint is open) it is undone from Baton's last write. Outside, Baton's own
 * control files are still restored, and a store file is a person's: kept and sealed when it is what git
 * put there (a pull, a checkout, their commit), or when they accept it (`baton adopt`, `doctor --fix`);
 * any other edit stops the write (returned, for the caller to throw once the files have been parsed), so
 * that it is neither overwritten nor taken in without a decision.
 */
async function settleForeignChanges(ctx: StoreContext, adopt: boolean): Promise<StoreChangedError | null> {
  const foreign = findForeignChanges(ctx.paths);
  if (foreign.length === 0) return null;
  const restore = !adopt && sessionActive(ctx.paths) ? foreign : foreign.filter((c) => !adoptable(c));
  const kept = foreign.filter((c) => !restore.includes(c));
  if (restore.length > 0) {
    restoreSealed(ctx.paths, restore);
    addNotice(`${describeForeignChanges(restore)}: changed outside Baton; restored from Baton's last write.`);
  }
  if (kept.length === 0) return null;
  const edits = adopt ? [] : await uncommittedChanges(ctx.config.root, kept);
  if (edits.length > 0) {
    const drop = edits.map((c) => relative(ctx.config.root, c.path)).join(" ");
    return new StoreChangedError(
      `${describeForeignChanges(edits)}: edited outside Baton since its last write, and not committed; nothing was written`,
      {
        hint: `Keep the edit with \`baton adopt\` (then run this command again), or drop it with \`git checkout -- ${drop}\`. \`baton doctor\` shows what changed.`,
      },
    );
  }
  addNotice(
    `${describeForeignChanges(kept)}: changed outside Baton since its last write (${adopt ? "adopted" : "as committed in git"}); kept and sealed now.`,
  );
  return null;
}

export interface MutateOptions {
  /** Recorded in the lock so a waiting command can name who holds it. */
  command: string;
  /** Allow a missing TODO.md while state.json has tasks (doctor rebuilds it). */
  rebuildTodo?: boolean;
  /**
   * Runs after the files are written and before the lock is released: a git commit of what was just
   * written, so that concurrent writers never interleave their commits.
   */
  afterWrite?: () => Promise<void>;
  /** `baton adopt` / `doctor --fix`: keep changes made outside Baton even while a session is active. */
  adopt?: boolean;
}

export async function mutateStore<R>(
  ctx: StoreContext,
  options: MutateOptions,
  mutate: (tx: Transaction) => R | Promise<R>,
): Promise<R> {
  const held = await holdStore(ctx, options.command);
  try {
    return await held.mutate(options, mutate);
  } finally {
    held.release();
  }
}

/** The store lock held across several steps: writes, then a git commit of them, with no writer between. */
export interface HeldStore {
  mutate<R>(options: Omit<MutateOptions, "command">, mutate: (tx: Transaction) => R | Promise<R>): Promise<R>;
  /** Idempotent. */
  release(): void;
}

export async function holdStore(ctx: StoreContext, command: string): Promise<HeldStore> {
  ensureInternalDir(ctx.paths.internalDir);
  const release = await acquireLock(ctx.paths.lock, { timeoutMs: ctx.config.lockTimeoutMs, command });
  let released = false;
  return {
    mutate: (options, mutate) => mutateLocked(ctx, options, mutate),
    release() {
      if (released) return;
      released = true;
      release();
    },
  };
}

async function mutateLocked<R>(
  ctx: StoreContext,
  options: Omit<MutateOptions, "command">,
  mutate: (tx: Transaction) => R | Promise<R>,
): Promise<R> {
  recoverInterruptedCommit(ctx.paths.journal, [ctx.paths.dir, ctx.paths.archiveDir]);
  const unaccepted = await settleForeignChanges(ctx, options.adopt ?? false);
  // A file that no longer parses says so with its line first: that is what the person must fix.
  const state = loadState(ctx.paths);
  const todoDoc = loadTodo(ctx.paths);
  if (!todoDoc && state.exists && state.tasks.length > 0 && !options.rebuildTodo) {
    throw new FileFormatError(
      "TODO_PARSE",
      ctx.paths.todo,
      `${ctx.paths.todo} is missing while state.json has tasks`,
      {
        hint: "Run `baton doctor --fix` to rebuild TODO.md from state.json.",
      },
    );
  }
  if (unaccepted) throw unaccepted;
  const todo = todoDoc ?? emptyTodo(ctx.paths.todo, state.doc.value.next_project_number);
  const tx = new Transaction(ctx, state, todo);
  const result = await mutate(tx);
  const writes = await tx.render();
  // The seal of what Baton writes lands in the same journaled commit as the files themselves.
  writes.push(...sealWrites(ctx.paths, writes, [...tx.deletes]));
  await commitFiles(ctx.paths.journal, writes, tx.moves, [...tx.deletes]);
  if (tx.stateCanonical && writes.some((w) => w.path === ctx.paths.state)) {
    rememberCanonical(ctx.paths.internalDir, ctx.paths.state);
  }
  if (options.afterWrite) await options.afterWrite();
  return result;
}
