import { mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileNamed } from "../shared/atomic-write.js";
import { batonPaths } from "../shared/baton-paths.js";
import {
  type BatonEvent,
  EVENTS_FILE,
  eventsDir,
  parseEventLines,
  readFrom,
  rotatedFiles,
} from "../shared/event-stream.js";
import { present } from "../shared/present.js";

/**
 * What `baton status`, the dashboard and the budgets need from the event stream, folded once: spend by
 * task, operation and day, the latest results and refusals, and each live session's latest phase. It is
 * cached in `.baton/cache/events-index.json` with the stream file's identity (inode) and the offset read
 * so far, so each read parses only what was appended since; the stream stays the truth, and a cache that
 * does not match it is rebuilt.
 */
export interface Spend {
  costUsd: number;
  tokensIn: number;
  tokensOut: number;
  runs: number;
}

export interface EventIndex {
  version: 1;
  /** Inode of the stream file the offset belongs to. */
  ino: number;
  offset: number;
  byTask: Record<string, Spend>;
  byOperation: Record<string, Spend>;
  byDay: Record<string, Spend>;
  /** Latest operation ends (done, partial, failed, refused), newest last. */
  results: BatonEvent[];
  /** Latest refusals: gate verdicts, hook denials and blocks, budget stops; newest last. */
  refusals: BatonEvent[];
  /** Per Baton session: its latest phase/wave/agent event and spend, while the session may be running. */
  sessions: Record<
    string,
    { last: BatonEvent; spend: Spend; started?: string; runner?: string; machine?: string }
  >;
}

const KEEP = 50;
const KEEP_SESSIONS = 200;

function empty(): EventIndex {
  return {
    version: 1,
    ino: -1,
    offset: 0,
    byTask: {},
    byOperation: {},
    byDay: {},
    results: [],
    refusals: [],
    sessions: {},
  };
}

const zero = (): Spend => ({ costUsd: 0, tokensIn: 0, tokensOut: 0, runs: 0 });

function add(into: Record<string, Spend>, key: string, event: BatonEvent): void {
  const spend = into[key] ?? zero();
  into[key] = spend;
  spend.costUsd = round(spend.costUsd + (event.costUsd ?? 0));
  spend.tokensIn += event.tokensIn ?? 0;
  spend.tokensOut += event.tokensOut ?? 0;
  spend.runs += 1;
}

/** Cents of a cent: sums of many small costs stay exact enough to compare with a budget. */
const round = (n: number) => Math.round(n * 1e6) / 1e6;

const REFUSALS = new Set(["refused", "deny", "block", "failed", "exceeded"]);

/** Folds one event into the index (pure apart from mutating `index`). */
export function foldEvent(index: EventIndex, event: BatonEvent): void {
  const session = event.session;
  if (event.kind === "agent") {
    if (event.task !== undefined) add(index.byTask, String(event.task), event);
    if (event.operation) add(index.byOperation, event.operation, event);
    add(index.byDay, event.ts.slice(0, 10), event);
  }
  if (session && ["operation", "phase", "wave", "agent", "gate", "commit", "queue"].includes(event.kind)) {
    const entry = index.sessions[session] ?? { last: event, spend: zero() };
    index.sessions[session] = entry;
    if (event.kind === "operation" && event.outcome === "started") {
      entry.started = event.ts;
      if (event.runner) entry.runner = event.runner;
    }
    if (event.kind === "queue" && event.machine) entry.machine = event.machine;
    if (event.kind !== "agent" || entry.last.kind === "agent") entry.last = event;
    if (event.kind === "agent") add({ s: entry.spend }, "s", event);
  }
  if (event.kind === "operation" && event.outcome !== "started") {
    index.results.push(event);
    if (index.results.length > KEEP) index.results.splice(0, index.results.length - KEEP);
    if (session) delete index.sessions[session];
  }
  const refused =
    (event.kind === "gate" || event.kind === "hook" || event.kind === "budget") &&
    REFUSALS.has(event.outcome ?? "");
  if (refused) {
    index.refusals.push(event);
    if (index.refusals.length > KEEP) index.refusals.splice(0, index.refusals.length - KEEP);
  }
  const names = Object.keys(index.sessions);
  if (names.length > KEEP_SESSIONS)
    for (const name of names.slice(0, names.length - KEEP_SESSIONS)) delete index.sessions[name];
}

function readCache(root: string): EventIndex | null {
  try {
    const value = JSON.parse(readFileSync(batonPaths(root).eventsIndex, "utf8")) as EventIndex;
    return value.version === 1 ? value : null;
  } catch {
    return null;
  }
}

function writeCache(root: string, index: EventIndex): void {
  try {
    const path = batonPaths(root).eventsIndex;
    // A read creates nothing: in a folder Baton has not written to, the cache is simply not kept.
    if (!present(batonPaths(root).dir)) return;
    mkdirSync(batonPaths(root).cacheDir, { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileNamed(temp, JSON.stringify(index));
    renameSync(temp, path);
  } catch {
    // A read-only checkout still gets its status; only the next read is slower.
  }
}

function inode(path: string): number {
  try {
    return statSync(path).ino;
  } catch {
    return -1;
  }
}

/**
 * The index, brought up to date with the stream: from the cached offset when the cached file is still
 * the current one, or still among the rotated ones (its rest is read first); rebuilt otherwise.
 */
export function readEventIndex(root: string): EventIndex {
  const dir = eventsDir(root);
  const current = join(dir, EVENTS_FILE);
  const currentIno = inode(current);
  const cached = readCache(root);
  let index = cached ?? empty();
  const fold = (text: string) => {
    for (const event of parseEventLines(text)) foldEvent(index, event);
  };
  let changed = false;
  if (cached && cached.ino === currentIno) {
    const { text, end } = readFrom(current, cached.offset);
    if (end < cached.offset) {
      index = empty();
      changed = true;
    } else if (text !== "") {
      fold(text);
      index.offset = end;
      changed = true;
    }
    if (!changed) return index;
    if (index.ino === currentIno) {
      writeCache(root, index);
      return index;
    }
  }
  const rotated = rotatedFiles(dir);
  const resumeAt = cached ? rotated.findIndex((name) => inode(join(dir, name)) === cached.ino) : -1;
  if (resumeAt < 0) index = empty();
  const files = resumeAt < 0 ? rotated : rotated.slice(resumeAt);
  files.forEach((name, k) => {
    fold(readFrom(join(dir, name), k === 0 && resumeAt >= 0 ? cached!.offset : 0).text);
  });
  const { text, end } = readFrom(current, 0);
  fold(text);
  index.ino = currentIno;
  index.offset = end;
  writeCache(root, index);
  return index;
}
