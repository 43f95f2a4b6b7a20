import type { PhaseId } from "./plan-types.js";

/** `null` means the value could not be read; `[]` means no phase dependencies. */
export type ParsedDependencies = PhaseId[] | null;

/** `- **Dependencies:** …` and `- **Dependencies**: …` (style A, 12.2), bullet optional for the legacy template. */
export const BULLET_DEPENDENCIES = /^\s*(?:[-*]\s+)?\*\*Dependencies(?::\*\*|\*\*\s*:)\s*(.*)$/i;

/** `dependencies: [1, 2]` (style B, hard-barrier 1.3). */
export const LINE_DEPENDENCIES = /^dependencies\s*:\s*(.*)$/;

const ID = /^\d+(?:\.\d+)?[a-z]?$/;
const NONE = /^(?:none|n\/a|nothing|-|—)(?:\W|$)/i;
// A phase of another task ("Task 970 Phase 3") is not an edge of this plan.
const OTHER_TASK_PHASE = /\bTasks?\s+\d+\s+Phases?\s+\d+(?:\.\d+)?[a-z]?/gi;
const N = String.raw`\d+(?:\.\d+)?[a-z]?`;
const ITEM = String.raw`${N}(?:\s*(?:-|–|to)\s*${N})?`;
const PHASE_LIST = new RegExp(
  String.raw`\bPhases?\s+(${ITEM}(?:\s*(?:,|\band\b|\bor\b|&)\s*(?:Phase\s+)?${ITEM})*)`,
  "gi",
);

function expand(item: string): PhaseId[] {
  const range = /^(\d+)\s*(?:-|–|to)\s*(\d+)$/.exec(item);
  if (!range) return ID.test(item) ? [item] : [];
  const from = Number(range[1]);
  const to = Number(range[2]);
  if (to < from) return [];
  return Array.from({ length: to - from + 1 }, (_, k) => String(from + k));
}

function unique(ids: PhaseId[]): PhaseId[] {
  return [...new Set(ids)];
}

/** One `Phase N` / `Phases N-M` / `Phases N, M` reference of a dependencies value. */
export interface DependencyGroup {
  ids: PhaseId[];
  /**
   * Qualified as already done (`Phases 1-5 completed`, `Phases 1-3 (completed)`, `Phase 2 (done)`,
   * `Phase 6 [COMPLETED]`). Revised plans use this for phases of the earlier version, which the new plan
   * may no longer hold; the parser decides whether the group is such a historical reference.
   */
  completed: boolean;
  /** The reference as written, qualifier included, for messages. */
  text: string;
}

const DONE_QUALIFIER = /^\s*(?:[([]\s*)?(?:completed?|done|finished)\b\s*[)\]]?/i;

/**
 * Style A values: `None …` → [], else every `Phase N` / `Phases N-M` / `Phases N, M` reference as a group.
 * A value naming only other tasks (`Task 970 (completed)`) has no phase dependencies.
 */
export function parseBulletDependencyGroups(value: string): DependencyGroup[] | null {
  const text = value.trim();
  if (NONE.test(text)) return [];
  const groups: DependencyGroup[] = [];
  const own = text.replace(OTHER_TASK_PHASE, "Task");
  for (const match of own.matchAll(PHASE_LIST)) {
    const qualifier = DONE_QUALIFIER.exec(own.slice(match.index + match[0].length))?.[0] ?? "";
    // `Phase 1, Phase 9 (done)`: each `Phase` word starts its own reference; the qualifier ends the last.
    const segments = match[0].split(/(?=\bPhases?\s+\d)/i).filter((seg) => seg.trim() !== "");
    segments.forEach((segment, k) => {
      const written = segment.replace(/\s*(?:,|\band\b|\bor\b|&)\s*$/i, "");
      const ids: PhaseId[] = [];
      for (const item of written.replace(/^Phases?\s+/i, "").split(/\s*(?:,|\band\b|\bor\b|&)\s*/)) {
        ids.push(...expand(item.trim()));
      }
      if (ids.length === 0) return;
      const tail = k === segments.length - 1 ? qualifier : "";
      groups.push({ ids: unique(ids), completed: tail !== "", text: (written + tail).trim() });
    });
  }
  if (groups.length > 0) return groups;
  return /\bTasks?\s+\d+/i.test(text) ? [] : null;
}

/** The ids of every group of a style A value, once each; see parseBulletDependencyGroups. */
export function parseBulletDependencies(value: string): ParsedDependencies {
  const groups = parseBulletDependencyGroups(value);
  return groups === null ? null : unique(groups.flatMap((g) => g.ids));
}

/** Style B values: `[]`, `[1, 2]`; brackets optional, `Phase` prefixes and `none` tolerated. */
export function parseLineDependencies(value: string): ParsedDependencies {
  const text = value.trim().replace(/\s+#.*$/, "");
  const inner = /^\[(.*)\]$/.exec(text)?.[1] ?? text;
  if (inner.trim() === "" || NONE.test(inner.trim())) return [];
  const ids: PhaseId[] = [];
  for (const raw of inner.split(",")) {
    const item = raw
      .trim()
      .replace(/^["']|["']$/g, "")
      .replace(/^phase[\s_]*/i, "");
    if (!ID.test(item)) return null;
    ids.push(item);
  }
  return unique(ids);
}
