import { basename, relative } from "node:path";
import type { Transaction } from "./store.js";
import type { ArtifactRecord, TaskEntry } from "./store-schema.js";
import { requireTodoEntry } from "./task-lookup.js";
import type { TodoEntry } from "./todo-document.js";
import { getEntryBlock, setEntryBlock } from "./todo-entry.js";
import { normalizeArtifactType } from "./views.js";

/**
 * Linking rule, one per artifact type (docs/lifecycle.md, "Artifact links"): research reports accumulate, as
 * they supplement each other; a new plan or summary replaces the old link, since only the latest is
 * current; other types (handoffs, analyses) accumulate. Both files change in the same write.
 */
const REPLACED_TYPES = new Set(["plan", "summary"]);
const TODO_LABEL: Record<string, { label: string; after: string[] }> = {
  research: { label: "Research", after: ["Language"] },
  plan: { label: "Plan", after: ["Research", "Language"] },
  summary: { label: "Summary", after: ["Plan", "Research", "Language"] },
};

export interface ArtifactLink {
  type: string;
  /** Repository-relative path. */
  path: string;
  summary?: string | undefined;
}

function recordOf(entry: TaskEntry["artifacts"] extends (infer A)[] | undefined ? A : never): ArtifactRecord {
  return typeof entry === "string" ? { path: entry } : entry;
}

export function linkArtifacts(tx: Transaction, task: TaskEntry, links: readonly ArtifactLink[]): void {
  task.artifacts ??= [];
  const artifacts = task.artifacts;
  for (const link of links) {
    const type = normalizeArtifactType(link.type);
    if (REPLACED_TYPES.has(type)) {
      for (let i = artifacts.length - 1; i >= 0; i--) {
        if (normalizeArtifactType(recordOf(artifacts[i]!).type) === type) artifacts.splice(i, 1);
      }
    }
    const existing = artifacts.findIndex((a) => recordOf(a).path === link.path);
    const record: ArtifactRecord = { path: link.path, type };
    if (link.summary !== undefined) record.summary = link.summary;
    record["created"] = tx.timestamp;
    if (existing === -1) artifacts.push(record);
    else artifacts[existing] = record;
  }
  advanceArtifactNumber(task, links);
  task.last_updated = tx.timestamp;
  const entry = requireTodoEntry(tx, task);
  for (const type of new Set(links.map((l) => normalizeArtifactType(l.type)))) {
    const todo = TODO_LABEL[type];
    if (!todo) continue;
    const ofType = artifacts.map(recordOf).filter((a) => normalizeArtifactType(a.type) === type);
    writeLinkLine(tx, entry, todo.label, todo.after, ofType);
  }
}

/**
 * A task that counts its artifacts (`next_artifact_number`, one two-digit sequence over reports, plans and
 * summaries: `02_plan.md`) moves past each number it links, so the next operation does not reuse one.
 */
function advanceArtifactNumber(task: TaskEntry, links: readonly ArtifactLink[]): void {
  const counter = task["next_artifact_number"];
  if (typeof counter !== "number") return;
  const numbers = links.flatMap((link) => {
    const match = /^(\d{2,})_/.exec(basename(link.path));
    return match ? [Number(match[1])] : [];
  });
  task["next_artifact_number"] = Math.max(counter, ...numbers.map((n) => n + 1));
}

/**
 * v1 style: one line, comma-joined links relative to the repository root, any trailing note kept;
 * v2 style: a list under the field, links relative to specs/, each with its summary after an em dash.
 * The entry's existing style wins; a new field follows the configured naming convention.
 */
function writeLinkLine(
  tx: Transaction,
  entry: TodoEntry,
  label: string,
  after: string[],
  artifacts: ArtifactRecord[],
): void {
  const current = getEntryBlock(entry, label);
  const v2 = current.length > 1 || (current.length === 0 && tx.config.artifactNaming === "v2");
  if (v2) {
    const items = artifacts.map((a) => {
      const target = relative(tx.paths.dir, `${tx.config.root}/${a.path}`);
      return `  - [${basename(a.path)}](${target})${a.summary ? ` — ${a.summary}` : ""}`;
    });
    setEntryBlock(entry, label, [`- **${label}**:`, ...items], after);
    return;
  }
  const links = artifacts.map((a) => `[${basename(a.path)}](${a.path})`).join(", ");
  // A note after the links, like " (team: constructive method path)", describes what was linked;
  // it stays when links are only added, and goes when the link it described is replaced.
  const note = /\)(\s+\([^)]*\)|\s+-\s.*)$/.exec(current[0] ?? "")?.[1] ?? "";
  const keepNote = label === "Research" && note !== "";
  setEntryBlock(entry, label, [`- **${label}**: ${links}${keepNote ? note : ""}`], after);
}
