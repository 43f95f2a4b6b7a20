import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import * as z from "zod/mini";
import { appendFileNamed } from "../shared/atomic-write.js";
import { LEGACY_MARKER_FILES, MARKER_FILES, storeInternalPaths } from "../shared/baton-paths.js";
import { logKey, openLine, readHead, sealLines, sealOf, withHeadLock, writeHead } from "./log-seal.js";

/**
 * What Baton learns about one in-session delegation while it is open, appended as JSON lines to
 * `specs/.baton/delegations/<baton session>.jsonl` by GATE IN and the hooks: the sub-agent launched
 * and bound to it, every change to a file of the task folder with its hash and who made it (the
 * bound sub-agent, another agent or the main thread), and how the sub-agent stopped. In-session
 * GATE OUT folds it to prove that the result on disk was written by the agent Baton delegated to.
 * Appends of one short line are atomic, so concurrent hook processes never lose each other's lines.
 */
export const DelegationEvent = z.discriminatedUnion("type", [
  /** What gate-in told the model to give the agent: added to a delegation call that leaves it out. */
  z.object({ type: z.literal("prompt"), at: z.string(), agentType: z.string(), text: z.string() }),
  z.object({ type: z.literal("launch"), at: z.string(), agentType: z.string() }),
  z.object({
    type: z.literal("bind"),
    at: z.string(),
    agentId: z.string(),
    agentType: z.string(),
    via: z.enum(["start", "transcript"]),
  }),
  z.object({
    type: z.literal("file"),
    at: z.string(),
    /** Relative to the repository root, `/`-separated. */
    path: z.string(),
    /** sha256 of the content; null when the file was deleted. */
    hash: z.nullable(z.string()),
    size: z.number(),
    mtimeMs: z.number(),
    /** `baseline` (there at GATE IN), `agent:<id>`, or `main` (the session's main thread). */
    actor: z.string(),
    tool: z.string(),
  }),
  /** The hosts' settings seen weaker than `baton init` left them, after a tool call (even if restored later). */
  z.object({
    type: z.literal("guard"),
    at: z.string(),
    tool: z.string(),
    actor: z.string(),
    what: z.string(),
  }),
  z.object({
    type: z.literal("stop"),
    at: z.string(),
    agentId: z.string(),
    lastOutput: z.string(),
    blocked: z.boolean(),
  }),
]);
export type DelegationEvent = z.infer<typeof DelegationEvent>;

export interface FileRecord {
  hash: string | null;
  size: number;
  mtimeMs: number;
  actor: string;
  tool: string;
}

export interface DelegationView {
  /** gate-in's prompt for the agent, when it recorded one. */
  prompt?: string;
  launches: string[];
  /** When the first Agent call carrying this delegation's prompt was made (FIFO binding). */
  launchedAt?: string;
  agentId?: string;
  agentType?: string;
  files: Map<string, FileRecord>;
  /** What the bound agent said at each of its stops, in order (GATE OUT reads it for TASK_ERROR). */
  stopOutput?: string;
  /** Consecutive blocked stops of the bound agent (reset by an allowed stop). */
  stopBlocks: number;
  /** Lines whose seal is not Baton's: written by something that does not hold Baton's key. */
  forged: string[];
  /** What weakened the hosts' settings while the checkpoint was open, and after which tool call. */
  guards: string[];
}

export function delegationLogPath(internalDir: string, sessionId: string): string {
  return storeInternalPaths(internalDir).delegation(sessionId);
}

export function appendDelegationEvents(
  internalDir: string,
  sessionId: string,
  events: DelegationEvent[],
): void {
  if (events.length === 0) return;
  const path = delegationLogPath(internalDir, sessionId);
  mkdirSync(dirname(path), { recursive: true });
  const key = logKey();
  const lines = events.map((e) => JSON.stringify(e));
  if (!key) {
    appendFileNamed(path, lines.map((l) => `${l}\n`).join(""));
    return;
  }
  const log = logIdentity(path);
  withHeadLock(log, () => {
    const head = readHead(log) ?? { lines: 0, seal: "" };
    const { sealed, last } = sealLines(key, sessionId, head.seal, lines);
    appendFileNamed(path, sealed.map((l) => `${l}\n`).join(""));
    writeHead(log, { lines: head.lines + sealed.length, seal: last });
  });
}

/** A log's name as the OS resolves its folder, so every process that reaches it by any path finds its head. */
function logIdentity(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return resolve(path);
  }
}

export function emptyDelegationView(): DelegationView {
  return { launches: [], files: new Map(), stopBlocks: 0, forged: [], guards: [] };
}

/** The log folded into what it says now; a torn or foreign line is skipped. */
export function readDelegation(internalDir: string, sessionId: string): DelegationView {
  const view = emptyDelegationView();
  let text = "";
  try {
    text = readFileSync(delegationLogPath(internalDir, sessionId), "utf8");
  } catch {
    // no log: nothing was recorded, unless its sealed head says otherwise (below)
  }
  const key = logKey();
  let previous = "";
  let verified = 0;
  for (const sealed of text.split("\n")) {
    if (sealed === "") continue;
    const line = openLine(key, sessionId, previous, sealed);
    if (line === null) {
      view.forged.push(sealed.slice(0, 200));
      continue;
    }
    previous = sealOf(sealed);
    verified++;
    let parsed: ReturnType<typeof DelegationEvent.safeParse>;
    try {
      parsed = DelegationEvent.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    const e = parsed.data;
    if (e.type === "prompt") view.prompt = e.text;
    else if (e.type === "launch") {
      view.launches.push(e.agentType);
      view.launchedAt ??= e.at;
    } else if (e.type === "bind") {
      view.agentId = e.agentId;
      view.agentType = e.agentType;
    } else if (e.type === "file") {
      view.files.set(e.path, {
        hash: e.hash,
        size: e.size,
        mtimeMs: e.mtimeMs,
        actor: e.actor,
        tool: e.tool,
      });
    } else if (e.type === "guard") {
      view.guards.push(`${e.what} (after a ${e.tool} call by ${e.actor}, ${e.at})`);
    } else if (e.agentId === view.agentId) {
      // A later stop adds to what the agent said and never replaces it: a TASK_ERROR stays reported.
      view.stopOutput = view.stopOutput === undefined ? e.lastOutput : `${view.stopOutput}\n${e.lastOutput}`;
      view.stopBlocks = e.blocked ? view.stopBlocks + 1 : 0;
    }
  }
  const head = key ? readHead(logIdentity(delegationLogPath(internalDir, sessionId))) : null;
  if (head && (verified < head.lines || previous !== head.seal)) {
    view.forged.push(
      `(the log holds ${verified} of the ${head.lines} line(s) Baton sealed: lines were removed or cut off)`,
    );
  }
  return view;
}

export function hashFile(path: string): string | null {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return null;
  }
}

/** Baton's own marker (and the original system's, which its own hooks write) is not the agent's work. */
const NOT_TRACKED = new Set<string>([...MARKER_FILES, ...LEGACY_MARKER_FILES]);

/** Files under a task folder (recursively), as repository-relative paths with `/`. */
export function folderFiles(root: string, folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile() && !NOT_TRACKED.has(name)) out.push(relative(root, path).split(sep).join("/"));
    }
  };
  walk(folder);
  return out.sort();
}

/**
 * The file events a look at the folders finds: new, changed and deleted files since the view's last
 * record, attributed to `actor`. Size and mtime decide which files are hashed again, so a look costs
 * a stat per file and a hash per changed file.
 */
export function observeFolders(
  root: string,
  folders: readonly string[],
  view: DelegationView,
  actor: string,
  tool: string,
  at: string,
): DelegationEvent[] {
  const events: DelegationEvent[] = [];
  const present = new Set<string>();
  for (const folder of folders) {
    for (const path of folderFiles(root, folder)) {
      present.add(path);
      const abs = join(root, path);
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(abs);
      } catch {
        continue;
      }
      const known = view.files.get(path);
      if (known && known.hash !== null && known.size === stat.size && known.mtimeMs === stat.mtimeMs)
        continue;
      const hash = hashFile(abs);
      if (known && known.hash === hash) continue;
      events.push({ type: "file", at, path, hash, size: stat.size, mtimeMs: stat.mtimeMs, actor, tool });
    }
  }
  for (const [path, known] of view.files) {
    const inFolder = folders.some((f) => `${join(root, path)}`.startsWith(`${f}${sep}`));
    if (known.hash !== null && inFolder && !present.has(path)) {
      events.push({ type: "file", at, path, hash: null, size: 0, mtimeMs: 0, actor, tool });
    }
  }
  return events;
}
