import { PHASE_STATUSES, type PhaseStatus } from "./plan-types.js";

/**
 * A phase's id as real plans write them (format reference 12.4, widened by what the original system's
 * repositories hold): `6`, `6.5`, `6a`, `3B`, `-1`, `4C-fix`, `1.1-1.3` (one phase over sub-steps),
 * lettered phases `A`, `B2`, and prefixed ones `CF-1`.
 */
const PHASE_ID = String.raw`(-?\d+(?:\.\d+)*[A-Za-z]?(?:-[A-Za-z]+)?|\d+(?:\.\d+)*-\d+(?:\.\d+)*|[A-Z]\d*(?:\.\d+)*[a-z]?|[A-Z]{1,4}-\d+(?:\.\d+)*[a-z]?)`;
const MARKERS = String.raw`((?:\s*\[[^\]]*\])*)`;
/**
 * A phase heading's text (read as CommonMark: no `#`s, no outer spaces): `Phase <id>`, an optional
 * `(qualifier)`, bracketed markers before or after a `: name`, and a `(remark)` after the markers.
 */
const PHASE_TEXT = new RegExp(
  String.raw`^Phase\s+${PHASE_ID}(?:\s*\(([^)]*)\))?${MARKERS}\s*(?::\s*(.*?))?${MARKERS}(?:\s*\(([^)]*)\))?$`,
);
/**
 * A revised plan's summary of phases kept from an earlier version: `### Phases 1-3: [COMPLETED in v1]`,
 * `### Phase 0-5: [COMPLETED]`, `### Phases 6-11: Same as v005` (no marker: phases still to do, whose
 * bodies are in the earlier version). The singular form needs its marker: `Phase 1-2: Name` is one phase.
 */
const CARRIED_TEXT = /^(Phases?)\s+(\d+)\s*(?:-|–|to)\s*(\d+)\s*:\s*(.*?)(?:\s*\[([A-Z][^\]]*)\])?$/;
/**
 * What an author means as a phase heading: `Phase`, a token holding a digit, then (after a qualifier or
 * markers) a colon. `Phase 2 Rollback [COMPLETE]`, `Phase 3 (Blocks 1-3)`, `Phase Dependencies` are sections
 * about phases, not phases.
 */
const PHASE_LIKE = /^Phases?\s+\S*\d\S*?\s*(?:\([^)]*\)\s*)?(?:\[[^\]]*\]\s*)*:/;
export const CHECKBOX = /^\s*- \[([ xX])\] /;
/** A marker Baton can write and read back on a phase heading. */
export const MARKER = /^[A-Z][A-Z _-]*$/;

/** COMPLETE (style B) and COMPLETED (style A) are the same state. */
export function normaliseStatus(marker: string): PhaseStatus {
  // `PARTIAL - AXIOMATIZED`, `PARTIAL] - Resume at …`: the state is the part before the dash.
  const head = (marker.split(/\s+-\s+/)[0] ?? "").trim();
  const known = statusOf(head);
  if (known !== "unknown") return known;
  // `COMPLETED in v1`: the state is the leading upper-case words.
  const words = /^[A-Z][A-Z_]*(?: [A-Z][A-Z_]*)*(?=\s|$)/.exec(head)?.[0];
  return words === undefined ? "unknown" : statusOf(words);
}

function statusOf(text: string): PhaseStatus {
  const key = text.toUpperCase();
  if (key === "COMPLETE" || key === "COMPLETED") return "complete";
  const snake = key.toLowerCase().replace(/[\s-]+/g, "_");
  return (PHASE_STATUSES as readonly string[]).includes(snake) ? (snake as PhaseStatus) : "unknown";
}

/** A phase heading (`ids` has one id) or a carried range heading (`ids` from the range). */
export interface Heading {
  index: number;
  depth: number;
  ids: string[];
  name: string;
  /** The marker that says the phase's state (the first one that names a state, else the last one). */
  marker: string | null;
  carried: boolean;
}

/** The bracketed words at the end of a heading, in order: `[COMPLETED] [PASS]` → COMPLETED, PASS. */
function markersOf(tail: string): string[] {
  return [...tail.matchAll(/\[([^\]]*)\]/g)].map((m) => (m[1] ?? "").trim());
}

function stateMarker(markers: readonly string[]): string | null {
  const named = markers.filter((m) => /^[A-Z]/.test(m));
  return named.find((m) => normaliseStatus(m) !== "unknown") ?? named.at(-1) ?? null;
}

function carriedHeading(depth: number, range: RegExpExecArray, index: number): Heading | null {
  const [, word, first = "", last = "", name = "", marker] = range;
  if (word === "Phase" && marker === undefined) return null;
  const from = Number(first);
  const to = Number(last);
  if (to < from) return null;
  return {
    index,
    depth,
    ids: Array.from({ length: to - from + 1 }, (_, k) => String(from + k)),
    name: name || `Phases ${from}-${to}`,
    marker: marker?.trim() ?? null,
    carried: true,
  };
}

/** Reads one of the document's own headings (depth and CommonMark text) as a phase or a carried range. */
export function readHeading(depth: number, text: string, index: number): Heading | null {
  const range = CARRIED_TEXT.exec(text);
  const carried = range ? carriedHeading(depth, range, index) : null;
  if (carried) return carried;
  const phase = PHASE_TEXT.exec(text);
  if (!phase) return null;
  const [, id = "", qualifier, before = "", name, after = "", remark] = phase;
  const markers = markersOf(before + after);
  const marker = stateMarker(markers);
  // Without a colon only a marker makes it a phase (`Phase 3 [COMPLETED]`); a bare `Phase 3` is a title.
  if (name === undefined && marker === null) return null;
  const shown = markers.filter((m) => m !== marker).map((m) => `[${m}]`);
  // A trailing `(…)` is a remark on the markers; with none it is the end of the name.
  const parts = [qualifier ? `(${qualifier})` : "", name ?? "", ...shown, remark ? `(${remark})` : ""];
  return { index, depth, ids: [id], name: parts.filter((s) => s !== "").join(" "), marker, carried: false };
}

/** A heading the author meant as a phase (see PHASE_LIKE) that readHeading cannot read. */
export function unreadPhaseHeading(text: string): boolean {
  return PHASE_LIKE.test(text);
}
