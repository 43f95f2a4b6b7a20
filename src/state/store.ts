import { relative } from "node:path";
import { FileFormatError, gitWorkTree, NothingHereError, StoreChangedError } from "../shared/index.js";
import { addNotice } from "../shared/notices.js";
import { present } from "../shared/present.js";
import { uncommittedChanges } from "./committed.js";
import { rememberCanonical } from "./format-hint.js";
import { commitFiles, recoverInterruptedCommit } from "./journal.js";
import { loadState, loadTodo } from "./load-store.js";
import { acquireLock, ensureInternalDir } from "./lock.js";
import { sessionActive } from "./open-checkpoint.js";
import {
  adoptable,
  describeForeignChanges,
  findForeignChanges,
  restoreSealed,
  sealCopyPath,
  sealWrites,
} from "./seal.js";
import { type Snapshot, type StoreContext, storeContext } from "./store-context.js";
import { summarizeWrite } from "./summary-write.js";
import { emptyTodo } from "./todo-document.js";
import { Transaction } from "./transaction.js";

export { type Snapshot, type StoreContext, storeContext, Transaction };

/**
 * Read commands and operations need a store to act on: without one they say so and what to run, rather
 * than answering "no tasks" or "all invariants hold" about a folder that has none (a wrong directory).
 */
export function requireStore(ctx: StoreContext): void {
  if (present(ctx.paths.state) || present(ctx.paths.todo)) return;
  const where = relative(ctx.config.root, ctx.paths.dir) || ".";
  throw new NothingHereError(
    "NO_STORE",
    `no task store in ${ctx.config.root}: ${where}/ has no state.json or TODO.md`,
    {
      hint:
        gitWorkTree(ctx.config.root) === null
          ? 'This is not a git repository either: run Baton from your repository (it looks upward for the nearest folder with specs/, a baton config or .git), or `git init` here and start with `baton task add "<title>"`.'
          : `Start one with \`baton task add "<title>"\` (it creates ${where}/ here), or run Baton from the repository that has one: it looks upward for the nearest folder with specs/, a baton config or .git.`,
    },
  );
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
/**
 * Under the store lock: an interrupted multi-file write rolled forward, and the temp files of writes that
 * were killed removed (the store's folders; Baton's own folder for writers no longer alive). `baton recover`
 * begins with it, so no crash point leaves a control or temp file behind.
 */
export async function sweepInterruptedWrites(ctx: StoreContext): Promise<void> {
  const release = await acquireLock(ctx.paths.lock, {
    timeoutMs: ctx.config.lockTimeoutMs,
    command: "baton recover (sweep)",
  });
  try {
    recoverInterruptedCommit(ctx.paths.journal, [ctx.paths.dir, ctx.paths.archiveDir]);
  } finally {
    release();
  }
}

/** An interrupted store write rolled forward, when there is one (one stat otherwise), before its files are read. */
export async function settleInterruptedWrite(ctx: StoreContext): Promise<void> {
  if (present(ctx.paths.journal)) await sweepInterruptedWrites(ctx);
}

export async function readSettledStore(ctx: StoreContext): Promise<Snapshot> {
  requireStore(ctx);
  const interrupted = present(ctx.paths.journal);
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
  /** The first `task add` starts the store; every other write needs one (`NO_STORE`, nothing created). */
  creates?: boolean;
}

export async function mutateStore<R>(
  ctx: StoreContext,
  options: MutateOptions,
  mutate: (tx: Transaction) => R | Promise<R>,
): Promise<R> {
  const held = await holdStore(ctx, options.command, { creates: options.creates });
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

export async function holdStore(
  ctx: StoreContext,
  command: string,
  options: { creates?: boolean | undefined } = {},
): Promise<HeldStore> {
  // A write where there is no store would create one as a side effect (`archive` in the wrong folder).
  if (!options.creates) requireStore(ctx);
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
  // A deleted control file's seal copy goes with it: nothing of a closed run stays behind.
  const deletes = [...tx.deletes, ...[...tx.deletes].map((path) => sealCopyPath(ctx.paths, path))];
  await commitFiles(ctx.paths.journal, writes, tx.moves, deletes);
  if (writes.some((w) => w.path === ctx.paths.state || w.path === ctx.paths.todo)) {
    const text = (path: string, unchanged: string) =>
      writes.find((w) => w.path === path)?.content ?? unchanged;
    summarizeWrite(
      ctx,
      { state: tx.state, todo: tx.todo },
      { state: text(ctx.paths.state, tx.state.doc.text), todo: text(ctx.paths.todo, tx.todo.source) },
    );
  }
  if (tx.stateCanonical && writes.some((w) => w.path === ctx.paths.state)) {
    rememberCanonical(ctx.paths.internalDir, ctx.paths.state);
  }
  if (options.afterWrite) await options.afterWrite();
  return result;
}
