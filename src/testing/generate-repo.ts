import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskStatus } from "../state/index.js";
import { errorsJson, todoText } from "./generated-text.js";

/**
 * Writes a specs/ tree shaped like a real one (format reference sections 2-5 and 8), with the quirks
 * real repositories have: legacy string artifacts, `report` artifact types, missing descriptions,
 * fields Baton does not know, stale legacy top-level keys, both folder naming conventions, curated
 * TODO sections, comments, and a hand-formatted errors.json. Deterministic for a given seed.
 */
export interface GenerateOptions {
  dir: string;
  active: number;
  archived?: number;
  naming?: "v1" | "v2" | "mixed";
  /** Create task folders with reports and plans (slower for large repos). */
  folders?: boolean;
  /** Add an orphan folder (number in neither file). */
  orphan?: boolean;
  seed?: number;
}

export interface GeneratedRepo {
  specsDir: string;
  activeNumbers: number[];
  archivedNumbers: number[];
  nextNumber: number;
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const WORDS = [
  "refactor",
  "proof",
  "system",
  "completeness",
  "parser",
  "lemma",
  "docs",
  "agent",
  "cache",
  "timeline",
  "quotient",
  "frame",
  "bilateral",
  "index",
  "review",
  "witness",
];
const LANGUAGES = ["lean", "general", "meta", "markdown", "latex", "logic", "typst"];
/** The statuses generated tasks take, in the order the seeded pick draws from (typed: only statuses Baton knows). */
const STATUSES: readonly TaskStatus[] = [
  "not_started",
  "researching",
  "researched",
  "planning",
  "planned",
  "implementing",
  "partial",
  "blocked",
  "completed",
];

type Pick = <T>(list: readonly T[]) => T;

function folderName(options: GenerateOptions, n: number, slug: string, i: number): string {
  const v2 = options.naming === "v2" || (options.naming === "mixed" && i % 2 === 1);
  return v2 ? `${String(n).padStart(3, "0")}_${slug}` : `${n}_${slug}`;
}

/** The artifacts a task of this status links, in the shapes real stores hold (bare paths, other types). */
function artifactsOf(status: string, folder: string, slug: string, i: number, v2: boolean): unknown[] {
  const base = `specs/${folder}`;
  const research = v2 ? `${base}/reports/01_${slug.slice(0, 20)}.md` : `${base}/reports/research-001.md`;
  const artifacts: unknown[] = [];
  if (i % 9 === 4) artifacts.push(research);
  else
    artifacts.push(
      i % 8 === 1
        ? { type: "report", path: research }
        : { path: research, type: "research", summary: "Findings." },
    );
  if (["planned", "implementing", "partial", "completed"].includes(status)) {
    artifacts.push({
      type: "plan",
      path: v2 ? `${base}/plans/02_plan.md` : `${base}/plans/implementation-001.md`,
      summary: "3-phase plan",
    });
  }
  return artifacts;
}

/** One active task's state.json entry, with the odd fields real entries carry now and then. */
function activeTask(
  options: GenerateOptions,
  pick: Pick,
  n: number,
  i: number,
  title: string,
  language: string,
) {
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, "_");
  const status = STATUSES[i % STATUSES.length]!;
  const folder = folderName(options, n, slug, i);
  const v2 = folder.startsWith("0") || folder.split("_")[0]!.length > String(n).length;
  const task: Record<string, unknown> = { project_number: n, project_name: slug, status, language };
  if (i % 3 !== 0) task["priority"] = pick(["high", "medium", "low"]);
  if (i % 5 !== 1) task["description"] = `Description of task ${n}: ${title.toLowerCase()}.`;
  task["created"] = i % 7 === 0 ? "2026-01-16" : "2026-03-16T10:02:11Z";
  task["last_updated"] = "2026-03-16T23:29:19Z";
  if (i % 4 === 0) task["session_id"] = `sess_1773703759_${(n % 0xffffff).toString(16).padStart(6, "0")}`;
  if (i % 6 === 2) task["dependencies"] = [n - 1];
  if (i % 11 === 3) task["blocked_on"] = "upstream issue #115";
  if (i % 13 === 5) task["plan_metadata"] = { phases: 3, total_effort_hours: 6, complexity: "medium" };
  if (i % 17 === 7) task["claudemd_suggestions"] = "none";
  if (status === "not_started") return task;
  const artifacts = artifactsOf(status, folder, slug, i, v2);
  task["artifacts"] = artifacts;
  task["researched"] = "2026-03-16T12:40:00Z";
  if (v2) task["next_artifact_number"] = 3;
  if (options.folders) {
    for (const a of artifacts) {
      const path = typeof a === "string" ? a : (a as { path: string }).path;
      mkdirSync(join(options.dir, path, ".."), { recursive: true });
      writeFileSync(join(options.dir, path), `# Report for task ${n}\n\n${"Real content. ".repeat(20)}\n`);
    }
  }
  return task;
}

/** The task's TODO.md entry, in the original's field style. */
function todoEntryOf(task: Record<string, unknown>, n: number, i: number, title: string): string {
  const status = String(task["status"]);
  const effort = i % 4 === 0 ? "TBD" : `${(i % 6) + 1} hours`;
  const lines = [
    `### ${n}. ${title}`,
    `- **Effort**: ${effort}`,
    `- **Status**: [${status.toUpperCase().replace(/_/g, " ")}]`,
    `- **Language**: ${task["language"]}`,
  ];
  if (task["priority"]) lines.push(`- **Priority**: ${task["priority"]}`);
  if (task["dependencies"])
    lines.push(
      i % 12 === 2 ? `- **Dependencies:** ${n - 1}` : `- **Dependencies**: Task ${n - 1} [COMPLETED]`,
    );
  if (task["blocked_on"]) lines.push("- **Blocked on**: upstream issue #115");
  if (task["artifacts"]) {
    const first = (task["artifacts"] as unknown[])[0];
    const path = typeof first === "string" ? first : (first as { path: string }).path;
    lines.push(`- **Research**: [${path.split("/").pop()}](${path})`);
  }
  lines.push("", `**Description**: ${task["description"] ?? `Hand-written description of ${n}.`}`);
  if (i % 10 === 3)
    lines.push("", "**Research Summary**: Kept as written.", "", "**Files to modify**:", "- `src/a.ts`");
  lines.push("", "---", "");
  return lines.join("\n");
}

function stateJson(tasks: Record<string, unknown>[], nextNumber: number): string {
  const state = {
    metadata: {
      generated_at: "2026-01-20T20:55:08.000000",
      total_tasks: 24,
      last_sync: "2026-03-14T22:30:00Z",
    },
    active_projects: tasks,
    completed_projects: [
      {
        project_number: 0,
        status: "abandoned",
        project_name: "legacy_entry",
        archived: "2026-01-16T23:00:00Z",
      },
    ],
    next_project_number: nextNumber,
    artifacts: [
      { path: "specs/0_legacy/plans/implementation-001.md", type: "plan", summary: "stale legacy list" },
    ],
    task_counts: { active: 12, not_started: 11, total: 336 },
    repository_health: { last_assessed: "2026-02-27T02:52:44Z", sorry_count: 76, status: "manageable" },
  };
  return `${JSON.stringify(state, null, 2)}\n`;
}

function archivedEntry(pick: Pick, n: number, i: number): Record<string, unknown> {
  if (i % 3 === 0) {
    return {
      project_number: n,
      project_name: `orphan_${n}`,
      status: "orphan_archived",
      archived: "2026-03-16T01:27:49Z",
      source: "orphan_recovery",
      detected_artifacts: ["reports/"],
    };
  }
  return {
    project_number: n,
    project_name: `archived_task_${n}`,
    status: i % 5 === 0 ? "abandoned" : "completed",
    language: pick(LANGUAGES),
    created: "2026-02-01T21:58:48Z",
    completion_summary: `Finished ${n}.`,
    artifacts: [
      { type: "research", path: `specs/${n}_archived_task_${n}/reports/research-001.md`, summary: "Done." },
    ],
    archived: "2026-03-01T00:00:00Z",
    source: "archival",
  };
}

export function generateRepo(options: GenerateOptions): GeneratedRepo {
  const random = rng(options.seed ?? 42);
  const pick: Pick = (list) => list[Math.floor(random() * list.length)]!;
  const specsDir = join(options.dir, "specs");
  mkdirSync(join(specsDir, "archive"), { recursive: true });
  const archivedCount = options.archived ?? 0;
  const archivedNumbers = Array.from({ length: archivedCount }, (_, i) => i + 1);
  const activeNumbers = Array.from({ length: options.active }, (_, i) => archivedCount + options.active - i);
  const nextNumber = archivedCount + options.active + 1;
  const tasks: Record<string, unknown>[] = [];
  const todoEntries: string[] = [];
  activeNumbers.forEach((n, i) => {
    // The picks happen in this order, as they always have: a seed gives the same repository.
    const words = [pick(WORDS), pick(WORDS), pick(WORDS)];
    const title = `${words[0]!.charAt(0).toUpperCase()}${words[0]!.slice(1)} ${words[1]} ${words[2]} for item ${n}`;
    const task = activeTask(options, pick, n, i, title, pick(LANGUAGES));
    tasks.push(task);
    todoEntries.push(todoEntryOf(task, n, i, title));
  });
  writeFileSync(join(specsDir, "state.json"), stateJson(tasks, nextNumber));
  writeFileSync(join(specsDir, "TODO.md"), todoText(todoEntries, nextNumber, activeNumbers[0] ?? 0));
  const archived = archivedNumbers.map((n, i) => archivedEntry(pick, n, i));
  writeFileSync(
    join(specsDir, "archive", "state.json"),
    `${JSON.stringify({ archived_projects: [], completed_projects: archived }, null, 2)}\n`,
  );
  writeFileSync(join(specsDir, "errors.json"), errorsJson(activeNumbers[0] ?? 1));
  if (options.orphan) {
    const orphan = join(specsDir, `${nextNumber + 50}_forgotten_experiment`, "reports");
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, "research-001.md"), "# Orphan\n");
  }
  return { specsDir, activeNumbers, archivedNumbers, nextNumber };
}
