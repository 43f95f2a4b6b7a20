import type { PhaseId } from "./types.js";

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

/**
 * Style A values: `None …` → [], else every `Phase N` / `Phases N-M` / `Phases N, M` reference.
 * A value naming only other tasks (`Task 970 (completed)`) has no phase dependencies.
 */
export function parseBulletDependencies(value: string): ParsedDependencies {
  const text = value.trim();
  if (NONE.test(text)) return [];
  const ids: PhaseId[] = [];
  for (const match of text.replace(OTHER_TASK_PHASE, "Task").matchAll(PHASE_LIST)) {
    for (const item of (match[1] ?? "").split(/\s*(?:,|\band\b|\bor\b|&)\s*/)) {
      ids.push(...expand(item.replace(/^Phase\s+/i, "").trim()));
    }
  }
  if (ids.length > 0) return unique(ids);
  return /\bTasks?\s+\d+/i.test(text) ? [] : null;
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
