import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Baton's own files and folders. Every name is written here once; the rest of the code asks this module,
 * so a renamed file cannot leave a reader, a hook guard or a commit exclusion behind.
 */

/** The folder Baton keeps beside a repository's files (hook log, events, caches) and inside its task store. */
export const BATON_DIR = ".baton";

/** In `<root>/.baton/`: per machine and never committed, except the init manifest. */
export const BATON_GITIGNORE = "*\n!init.json\n!keys/\n!keys/*\n";

/** `baton init`'s manifest, repository-relative with `/`: the one file of `.baton/` that is committed. */
export const INIT_MANIFEST = `${BATON_DIR}/init.json`;

/**
 * The public keys that sign evidence, committed (`<fingerprint>.pub`), and the vouches that bring a new
 * machine's key in (`<fingerprint>.vouch`, signed by a key already trusted). Repository-relative with `/`.
 */
export const REPO_KEYS_DIR = `${BATON_DIR}/keys`;
export const publicKeyFile = (fingerprint: string) => `${REPO_KEYS_DIR}/${fingerprint}.pub`;
export const vouchFile = (fingerprint: string) => `${REPO_KEYS_DIR}/${fingerprint}.vouch`;
/** In the key folder (batonKeyDir): this machine's private signing key. */
/** Baton's configuration files at the repository root: one of them at most. */
export const CONFIG_FILE_NAMES = ["baton.config.json", "baton.config.yaml", "baton.config.yml"] as const;
/**
 * The hosts' settings hold Baton's hooks, and a host runs every script of its plugin folders: an agent that could
 * write them could switch the hooks off. Each host's own files are held to this list (hosts/registry.test.ts).
 */
export const HOST_SETTINGS_FILES = [
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".codex/hooks.json",
  "opencode.json",
  "opencode.jsonc",
  ".opencode/plugin",
  ".opencode/plugins",
] as const;

/**
 * Files that decide how Baton and the hosts run the next agent (Baton's configuration, the hosts' hook
 * settings and plugins): an agent may neither change one nor create one that was not there, ignored by
 * git or not. The sandbox binds those that exist read-only; GATE OUT catches one made (check-settings.ts).
 */
export const GUARDED_SETTINGS: readonly string[] = [...CONFIG_FILE_NAMES, ...HOST_SETTINGS_FILES];

export const SIGNING_KEY_FILE = "evidence-signing-key.pem";

/** Where each of Baton's files of a repository lives, from its root. */
export function batonPaths(root: string) {
  const dir = join(root, BATON_DIR);
  return {
    dir,
    gitignore: join(dir, ".gitignore"),
    initManifest: join(root, INIT_MANIFEST),
    /** The event stream's folder (`events.jsonl` and its rotations). */
    events: join(dir, "events"),
    hookLog: join(dir, "logs", "hooks.jsonl"),
    cacheDir: join(dir, "cache"),
    eventsIndex: join(dir, "cache", "events-index.json"),
    boardCache: join(dir, "cache", "board.json"),
    /** `baton verify`'s status moves per commit of state.json's history (commits never change). */
    historyCache: join(dir, "cache", "state-history.json"),
    /**
     * Where holdout checks' files are, only while one runs (ignored, like all of `.baton/`): hidden from every
     * agent's sandbox and every other check's, and denied to Claude Code's sandbox and file tools.
     */
    holdoutDir: join(dir, "holdout"),
    holdoutRun: (check: string) => join(dir, "holdout", check.replace(/[^A-Za-z0-9_-]/g, "_")),
    /** What each check's runner reported at one baseline tree, measured once. */
    baselineCounts: (key: string) => join(dir, "cache", "check-counts", `${key}.json`),
    /** Where `baton serve` publishes the port the resident forwarders call. */
    servePort: join(dir, "serve.port"),
    /** The Stop hook's block counter of one host session. */
    stopBlocks: (hostSession: string) =>
      join(dir, "state", `stop-blocks-${hostSession.replace(/[^A-Za-z0-9_-]/g, "_")}.json`),
    /** The queue coordinator's record of the jobs it is waiting for. */
    queue: join(dir, "queue"),
  };
}

export const EVENTS_FILE = "events.jsonl";

/** Inside the task store's own `.baton/` (`specs/.baton/`), from that folder. */
export function storeInternalPaths(internalDir: string) {
  const safe = (id: string) => id.replace(/[^A-Za-z0-9_-]/g, "_");
  return {
    lock: join(internalDir, "lock"),
    journal: join(internalDir, "journal.json"),
    checkpoints: join(internalDir, "checkpoints"),
    checkpoint: (taskNumber: number) => join(internalDir, "checkpoints", `${taskNumber}.json`),
    session: (sessionId: string) => join(internalDir, "sessions", `${sessionId}.jsonl`),
    /** One record per host session running in the repository (`state/live-sessions.ts`). */
    liveSessions: join(internalDir, "live-sessions"),
    delegation: (sessionId: string) => join(internalDir, "delegations", `${safe(sessionId)}.jsonl`),
    seal: join(internalDir, "seal"),
    /** What read commands show of the store, kept while state.json and TODO.md stay as they were. */
    summaryCache: join(internalDir, "cache", "store-summary.json"),
    /** Where each task's entry is in state.json and TODO.md, under the same key: `task show` reads one. */
    offsetsCache: join(internalDir, "cache", "store-offsets.json"),
  };
}

/**
 * In a task folder while an operation is open: the delegation whose result is still owed. Named Baton's own:
 * the original system's repositories keep `.postflight-pending` and wire their own SubagentStop script to it,
 * which held Baton's agents and deleted Baton's marker while the two shared one name.
 */
export const MARKER_FILE = ".baton-postflight-pending";
/** How many times the SubagentStop hook has blocked, beside the marker. */
export const LOOP_GUARD_FILE = ".baton-postflight-loop-guard";
/** The original system's marker and loop guard: theirs to write, never an artifact, never committed by Baton. */
export const LEGACY_MARKER_FILES = [".postflight-pending", ".postflight-loop-guard"] as const;
/** The return metadata an agent writes for the operation. */
export const METADATA_FILE = ".return-meta.json";
/** Where each kind of artifact lives inside a task folder (format reference 8.2, 8.3). */
export const ARTIFACT_DIRS = {
  research: "reports",
  plan: "plans",
  summary: "summaries",
  handoff: "handoffs",
} as const;
/** The summary a phase agent writes, in the task folder's summaries. */
export const phaseSummaryFile = (phaseId: string) => `phase-${phaseId}-summary.md`;
/** The return metadata of one phase of a plan run. */
export const phaseMetadataFile = (phaseId: string) => `.return-meta.phase-${phaseId}.json`;
/** Every return-metadata file name, the operation's and each phase's. */
export const METADATA_NAME = /^\.return-meta(\.phase-[^/]+)?\.json$/;
/** The evidence folder of a task folder. */
export const EVIDENCE_DIR = "evidence";

/** Task-folder files that steer a run and are never an artifact or part of a commit. */
export const MARKER_FILES = [MARKER_FILE, LOOP_GUARD_FILE] as const;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** A regular-expression source matching a marker's name, or Baton's folder with what follows it in a path. */
export const MARKER_NAME_SOURCE = MARKER_FILES.map(escapeRegExp).join("|");
export const BATON_DIR_SOURCE = escapeRegExp(BATON_DIR);

/**
 * Files a run keeps in the task folder for itself: the marker, the loop guard, return metadata (also a
 * phase's), and temp files of atomic writes. None is ever an artifact, and none is ever committed.
 */
export function isControlFile(name: string): boolean {
  return (
    (MARKER_FILES as readonly string[]).includes(name) ||
    (LEGACY_MARKER_FILES as readonly string[]).includes(name) ||
    METADATA_NAME.test(name) ||
    TEMP_FILE_NAME.test(name) ||
    // the original system's name for the metadata file
    name === ".meta-return.json"
  );
}

/** Glob patterns (git pathspec / plain glob) of the control files of a task folder. */
export const CONTROL_FILE_GLOBS = [
  METADATA_FILE,
  ".return-meta.phase-*.json",
  ...MARKER_FILES,
  ...LEGACY_MARKER_FILES,
] as const;

/** The temp file of an atomic write of `name`: named before it is written, so recovery can find it anywhere. */
export const tempFileName = (name: string, pid: number, hex: string) => `.${name}.baton-${pid}-${hex}.tmp`;
/** The glob of every such temp file. */
export const TEMP_FILE_GLOB = ".*.baton-*.tmp";
export const TEMP_FILE_NAME = /^\..+\.baton-\d+-[0-9a-f]+\.tmp$/;

/**
 * Where Baton keeps its signing keys: outside every repository, per user, and hidden from every agent's
 * sandbox (`BATON_KEY_DIR` moves it, for tests and for machines that keep keys elsewhere).
 */
export function batonKeyDir(): string {
  return process.env["BATON_KEY_DIR"] ?? join(homedir(), ".config", "baton", "keys");
}

/**
 * A holdout check's output, kept for the person beside the key (which no sandbox of an agent or a check shows,
 * and Claude Code's sandbox and file tools are denied), never in the repository where the next agent reads.
 */
export function holdoutLogPath(root: string, check: string): string {
  const repo = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return join(batonKeyDir(), "holdout-logs", repo, `${check.replace(/[^A-Za-z0-9_-]/g, "_")}.log`);
}
