import { mkdirSync, readFileSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileNamed } from "../shared/atomic-write.js";
import { runGit } from "../shared/git.js";
import { readObjects } from "../shared/git-objects.js";
import { present } from "../shared/present.js";

/** A task reaching a status in one commit of state.json's history (the parent had another, or none). */
export interface StatusMove {
  task: number;
  from: string | null;
  to: string;
}

export interface StateCommit {
  commit: string;
  subject: string;
  session: string | null;
  moves: StatusMove[];
}

/**
 * What each commit that touched state.json changed, keyed by commit: a commit never changes, so its moves
 * are computed once and kept (`.baton/cache/`), and a later `verify` reads only the commits added since.
 */
interface HistoryCache {
  /** 2: a shallow clone's boundary commits are no longer kept (1 kept their moves as if they had no parent). */
  version: 2;
  statePath: string;
  commits: Record<string, StatusMove[]>;
}

export interface HistoryOptions {
  /** Where the per-commit moves are kept; null keeps nothing (a folder Baton has not written to). */
  cacheFile: string | null;
  /** Commits whose moves are not kept: a shallow clone's boundary, whose parent is missing until it is fetched. */
  uncached?: ReadonlySet<string> | undefined;
  /** Called as commits are read: (done, total). */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** Keeps batches well under what one git call may print (shared/git.ts). */
const BATCH_BYTES = 32 * 1024 * 1024;

function sessionOf(message: string): string | null {
  const match = /^Session: (\S+)\s*$/m.exec(message);
  return match ? match[1]! : null;
}

/** Every commit that changed state.json, oldest first, with the status moves it made. */
export async function stateHistory(
  root: string,
  statePath: string,
  options: HistoryOptions,
): Promise<StateCommit[]> {
  const log = await runGit(root, ["log", "--reverse", "--format=%H%x00%P%x00%B%x01", "--", statePath]);
  const records: Array<{ commit: string; parent: string | null; message: string }> = [];
  for (const record of (log.ok ? log.stdout : "").split("\x01")) {
    const [commit, parents, message] = record.replace(/^\n/, "").split("\0");
    if (!commit || message === undefined) continue;
    records.push({ commit, parent: parents?.split(" ")[0] || null, message });
  }
  const cache = readCache(options.cacheFile, statePath);
  const missing = records.filter((r) => cache.commits[r.commit] === undefined);
  if (missing.length > 0) await computeMoves(root, statePath, missing, cache, options.onProgress);
  const history = records.map((r) => ({
    commit: r.commit,
    subject: r.message.split("\n")[0] ?? "",
    session: sessionOf(r.message),
    moves: cache.commits[r.commit] ?? [],
  }));
  if (missing.length > 0) {
    for (const commit of options.uncached ?? []) delete cache.commits[commit];
    writeCache(options.cacheFile, cache);
  }
  return history;
}

/** Reads each state.json version once (two git processes for any number of commits) and diffs the statuses. */
async function computeMoves(
  root: string,
  statePath: string,
  records: ReadonlyArray<{ commit: string; parent: string | null }>,
  cache: HistoryCache,
  onProgress: HistoryOptions["onProgress"],
): Promise<void> {
  const revs = [...new Set(records.flatMap((r) => (r.parent ? [r.commit, r.parent] : [r.commit])))];
  const blobOf = await blobIds(
    root,
    revs.map((rev) => `${rev}:${statePath}`),
  );
  const sizes = new Map<string, number>();
  for (const [, blob] of blobOf) if (blob) sizes.set(blob.id, blob.size);
  const statuses = new Map<string, Map<number, string>>();
  let done = 0;
  for (const batch of batches(sizes)) {
    const blobs = await readObjects(root, batch);
    for (const id of batch) {
      const blob = blobs?.get(id);
      if (blob) statuses.set(id, statusesIn(blob.bytes.toString("utf8")));
    }
    done += batch.length;
    onProgress?.(Math.round((done / Math.max(1, sizes.size)) * records.length), records.length);
  }
  const at = (rev: string | null) => {
    const blob = rev ? blobOf.get(`${rev}:${statePath}`) : null;
    return (blob && statuses.get(blob.id)) || new Map<number, string>();
  };
  for (const record of records) {
    const now = at(record.commit);
    const before = at(record.parent);
    const moves: StatusMove[] = [];
    for (const [task, status] of now) {
      if (before.get(task) !== status) moves.push({ task, from: before.get(task) ?? null, to: status });
    }
    cache.commits[record.commit] = moves;
  }
}

/** `rev:path` → the blob's id and size, or null where the file is not there. */
async function blobIds(
  root: string,
  specs: string[],
): Promise<Map<string, { id: string; size: number } | null>> {
  const out = new Map<string, { id: string; size: number } | null>();
  if (specs.length === 0) return out;
  const result = await runGit(root, ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"], {
    stdin: `${specs.join("\n")}\n`,
  });
  const lines = result.ok ? result.stdout.split("\n") : [];
  specs.forEach((spec, i) => {
    const [id, type, size] = (lines[i] ?? "").split(" ");
    out.set(spec, id && type === "blob" ? { id, size: Number(size) } : null);
  });
  return out;
}

function* batches(sizes: Map<string, number>): Generator<string[]> {
  let batch: string[] = [];
  let bytes = 0;
  for (const [id, size] of sizes) {
    if (batch.length > 0 && bytes + size > BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(id);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/** Statuses of active tasks in one state.json version; empty when it does not parse. */
function statusesIn(text: string): Map<number, string> {
  const map = new Map<number, string>();
  try {
    const state = JSON.parse(text) as {
      active_projects?: Array<{ project_number?: unknown; status?: unknown }>;
    };
    for (const task of Array.isArray(state.active_projects) ? state.active_projects : []) {
      if (typeof task?.project_number === "number" && typeof task.status === "string") {
        map.set(task.project_number, task.status);
      }
    }
  } catch {
    // a state.json that does not parse at this commit has no completions to check
  }
  return map;
}

function readCache(path: string | null, statePath: string): HistoryCache {
  const empty: HistoryCache = { version: 2, statePath, commits: {} };
  if (!path) return empty;
  try {
    const cache = JSON.parse(readFileSync(path, "utf8")) as HistoryCache;
    return cache.version === 2 && cache.statePath === statePath && typeof cache.commits === "object"
      ? cache
      : empty;
  } catch {
    return empty;
  }
}

function writeCache(path: string | null, cache: HistoryCache): void {
  if (!path || !present(dirname(dirname(path)))) return;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileNamed(temp, JSON.stringify(cache));
    renameSync(temp, path);
  } catch {
    // A read-only checkout still verifies; only the next run reads the history again.
  }
}
