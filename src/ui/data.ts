import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { BatonConfig } from "../config/index.js";
import { type Phase, parsePlan, planWaves } from "../plan/index.js";
import { batonPaths, EVIDENCE_DIR } from "../shared/baton-paths.js";
import { type BatonEvent, readAllEvents } from "../shared/event-stream.js";
import { present } from "../shared/present.js";
import {
  latestPlanFile,
  loadArchive,
  loadErrors,
  readSettledStore,
  storeContext,
  type TaskView,
  taskFolderPath,
  taskView,
  taskViews,
  todoIndex,
} from "../state/index.js";
import { type ApprovalView, readApproval } from "./approval-panel.js";

/** A task on the board: what a card shows. */
export interface BoardTask {
  number: number;
  title: string;
  status: string;
  language: string;
}

export interface Board {
  tasks: BoardTask[];
  archived: number;
}

/** Identity of the files the board is read from: a cache is good while none of them changed. */
function identity(config: BatonConfig): string {
  const paths = storeContext(config).paths;
  return [paths.state, paths.todo, paths.archiveState]
    .map((path) => {
      try {
        const s = statSync(path);
        return `${s.ino}:${s.size}:${s.mtimeMs}`;
      } catch {
        return "-";
      }
    })
    .join("|");
}

let memory: { key: string; board: Board } | undefined;

/**
 * The board, from the store, cached (in memory, and in `.baton/cache/board.json` for the next start)
 * under the identity of the store files: the files stay the truth, and any change reads them again.
 */
export async function readBoard(config: BatonConfig): Promise<Board> {
  const key = `${config.root}|${identity(config)}`;
  if (memory?.key === key) return memory.board;
  try {
    const cached = JSON.parse(readFileSync(batonPaths(config.root).boardCache, "utf8")) as {
      key: string;
      board: Board;
    };
    if (cached.key === key) {
      memory = cached;
      return cached.board;
    }
  } catch {
    // no cache yet, or a torn one: read the store
  }
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const board: Board = {
    tasks: taskViews(snapshot).map((t) => ({
      number: t.number,
      title: t.title,
      status: t.status,
      language: t.language,
    })),
    archived: loadArchive(ctx.paths).entries.length,
  };
  memory = { key, board };
  try {
    mkdirSync(batonPaths(config.root).cacheDir, { recursive: true });
    const temp = `${batonPaths(config.root).boardCache}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(memory));
    renameSync(temp, batonPaths(config.root).boardCache);
  } catch {
    // a read-only checkout still gets its board
  }
  return board;
}

export interface ArtifactPage {
  path: string;
  type: string;
  /** The file's size in bytes, or null when it is missing. */
  bytes: number | null;
  /**
   * Its opening, cut at a paragraph near PREVIEW_CHARS: the task page shows every artifact this short (a
   * task with long reports made a page of half a megabyte); its own page (`readArtifact`) shows it whole.
   */
  preview: string | null;
  /** Whether `preview` is the whole text. */
  whole: boolean;
}

const PREVIEW_CHARS = 1200;

function previewOf(text: string): { preview: string; whole: boolean } {
  if (text.length <= PREVIEW_CHARS) return { preview: text, whole: true };
  const cut = text.lastIndexOf("\n\n", PREVIEW_CHARS);
  return { preview: text.slice(0, cut > PREVIEW_CHARS / 3 ? cut : PREVIEW_CHARS), whole: false };
}

export interface PlanPage {
  file: string;
  status: string | null;
  phases: Array<Pick<Phase, "id" | "name" | "marker" | "dependencies">>;
  waves: string[][] | null;
}

export interface TaskPage {
  task: TaskView;
  folder: string;
  artifacts: ArtifactPage[];
  plan: PlanPage | null;
  evidence: Array<{ file: string; value: unknown }>;
  errors: Array<Record<string, unknown>>;
  /** This task's events, newest first (sessions, phases, gate verdicts, spend). */
  events: BatonEvent[];
  /** Where its plan stands with a person's approval, where the configuration asks for one. */
  approval: ApprovalView | null;
}

const MAX_TEXT = 256 * 1024;

function readInside(root: string, rel: string): string | null {
  const path = resolve(root, rel);
  if (path !== root && !path.startsWith(root + sep)) return null;
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}\n\n… (cut at 256 KiB)` : text;
  } catch {
    return null;
  }
}

function readPlan(config: BatonConfig, folder: string, artifacts: readonly unknown[]): PlanPage | null {
  const path = latestPlanFile(config.root, folder, artifacts);
  if (!path || !present(path)) return null;
  const parsed = parsePlan(path, readFileSync(path, "utf8"));
  const plan = parsed.ok ? parsed.plan : parsed.partial;
  const waves = planWaves(plan.phases);
  return {
    file: relative(config.root, path),
    status: plan.status?.marker ?? null,
    phases: plan.phases.map((p) => ({
      id: p.id,
      name: p.name,
      marker: p.marker,
      dependencies: p.dependencies,
    })),
    waves: waves.ok ? waves.waves : null,
  };
}

function readEvidence(folder: string, root: string): Array<{ file: string; value: unknown }> {
  const dir = join(folder, EVIDENCE_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  return names.sort().map((name) => {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(join(dir, name), "utf8"));
    } catch {
      value = null;
    }
    return { file: relative(root, join(dir, name)), value };
  });
}

/** One artifact of a task in full (its first 256 KiB), by its place in the task's list; null if none. */
export async function readArtifact(
  config: BatonConfig,
  number: number,
  index: number,
): Promise<{ task: number; path: string; type: string; text: string | null } | null> {
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const entry = snapshot.state.tasks.find((t) => t.project_number === number);
  if (!entry) return null;
  const artifact = taskView(entry, todoIndex(snapshot.todo).get(number), true).artifacts[index];
  if (!artifact) return null;
  return {
    task: number,
    path: artifact.path,
    type: artifact.type,
    text: readInside(config.root, artifact.path),
  };
}

/** Everything the task page shows, or null for a number that is not an active task. */
export async function readTaskPage(config: BatonConfig, number: number): Promise<TaskPage | null> {
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const entry = snapshot.state.tasks.find((t) => t.project_number === number);
  if (!entry) return null;
  const task = taskView(entry, todoIndex(snapshot.todo).get(number), true);
  const folder = taskFolderPath(ctx.paths.dir, entry, config.artifactNaming);
  const errors = loadErrors(ctx.paths)
    .entries.filter((e) => (e as { context?: { task_number?: unknown } }).context?.task_number === number)
    .slice(-20)
    .reverse() as Array<Record<string, unknown>>;
  return {
    task,
    folder: relative(config.root, folder),
    artifacts: task.artifacts.map((a) => {
      const text = readInside(config.root, a.path);
      const shown = text === null ? null : previewOf(text);
      return {
        path: a.path,
        type: a.type,
        bytes: text === null ? null : Buffer.byteLength(text),
        preview: shown?.preview ?? null,
        whole: shown?.whole ?? true,
      };
    }),
    plan: readPlan(config, folder, entry.artifacts ?? []),
    approval: await readApproval(config, entry, folder),
    evidence: readEvidence(folder, config.root),
    errors,
    events: readAllEvents(config.root)
      .filter((e) => e.task === number)
      .slice(-200)
      .reverse(),
  };
}
