import { EditableLines } from "../shared/editable-lines.js";
import { isQuoted, markdownLines } from "../shared/markdown-lines.js";
import { parsePlan } from "./parse.js";
import { MARKER } from "./plan-markdown.js";
import type { Phase, PhaseId, Plan, PlanStyle } from "./plan-types.js";

/**
 * Pure text edits of a plan file. Each changes only its target lines: every other byte stays as it was,
 * including CRLF line ends (a line keeps its own `\r`), fenced code blocks and carried range headings.
 */
export type EditResult = { ok: true; text: string; changed: boolean } | { ok: false; reason: string };
/** `found: false`: the plan has no metadata Status line, and `text` is the input unchanged. */
export interface PlanStatusEdit {
  text: string;
  changed: boolean;
  found: boolean;
}

/** What the done state is called in each style (specs-format 12.4): the task system writes COMPLETED. */
export function doneMarker(style: PlanStyle): "COMPLETED" | "COMPLETE" {
  return style === "task" ? "COMPLETED" : "COMPLETE";
}

export type PlanOutcome = "in_progress" | "complete" | "partial" | "blocked";

/**
 * The plan header marker for a run's outcome. Task style mirrors the task status (specs-format 13.2:
 * IMPLEMENTING, COMPLETED, PARTIAL, BLOCKED). Hard-barrier plans know only NOT STARTED, IN PROGRESS,
 * COMPLETE and BLOCKED (hard-barrier 1.2), so a partial run leaves the plan IN PROGRESS.
 */
export function planStatusMarker(style: PlanStyle, outcome: PlanOutcome): string {
  if (style === "task") {
    return { in_progress: "IMPLEMENTING", complete: "COMPLETED", partial: "PARTIAL", blocked: "BLOCKED" }[
      outcome
    ];
  }
  return { in_progress: "IN PROGRESS", complete: "COMPLETE", partial: "IN PROGRESS", blocked: "BLOCKED" }[
    outcome
  ];
}

function readPlan(text: string): Plan {
  const result = parsePlan("", text);
  return result.ok ? result.plan : result.partial;
}

/** The first definition of an id (the one waves count), if it may be edited. */
function editablePhase(
  plan: Plan,
  phaseId: PhaseId,
): { ok: true; phase: Phase } | { ok: false; reason: string } {
  const phase = plan.phases.find((p) => p.id === phaseId);
  if (!phase) return { ok: false, reason: `Phase ${phaseId} is not in the plan` };
  if (phase.carried) {
    return {
      ok: false,
      reason: `Phase ${phaseId} is carried from an earlier plan version and is never edited`,
    };
  }
  return { ok: true, phase };
}

function checkMarker(marker: string): string | null {
  return MARKER.test(marker) ? null : `"${marker}" is not a marker (upper-case words, e.g. IN PROGRESS)`;
}

/**
 * Sets the bracketed marker of a phase heading, or appends ` [MARKER]` to a legacy heading without one.
 * A duplicated id edits its first definition.
 */
export function setPhaseMarker(text: string, phaseId: PhaseId, marker: string): EditResult {
  const bad = checkMarker(marker);
  if (bad) return { ok: false, reason: bad };
  const found = editablePhase(readPlan(text), phaseId);
  if (!found.ok) return found;
  const { phase } = found;
  if (phase.marker === marker) return { ok: true, text, changed: false };
  const lines = new EditableLines(text);
  const index = phase.line - 1;
  const old = lines.content(index);
  // The heading's state marker is its last `[OLD]` (a name may hold brackets before it); none: append one
  // before any closing `#`s.
  const at = phase.marker === null ? -1 : old.lastIndexOf(`[${phase.marker}]`);
  const next =
    at === -1
      ? old.replace(/(\s+#+)?(\s*)$/, ` [${marker}]$1$2`)
      : `${old.slice(0, at)}[${marker}]${old.slice(at + (phase.marker?.length ?? 0) + 2)}`;
  lines.set(index, next);
  const edited = lines.text();
  const back = readPlan(edited).phases.find((p) => p.line === phase.line);
  // A name ending in something marker-like could swallow the edit; refuse rather than write it.
  if (back?.carried !== false || back.id !== phaseId || back.marker !== marker) {
    return { ok: false, reason: `cannot set the marker of Phase ${phaseId} on line ${phase.line}: "${old}"` };
  }
  return { ok: true, text: edited, changed: true };
}

const OPEN_BOX = /^(\s*- \[) (\] )/;
const TICKED_BOX = /^(\s*- \[)[xX](\] )/;

/**
 * Ticks every open checkbox in the phase body, nested ones too, but none in code, HTML or a quote. An
 * unknown or carried id gives the text back unchanged: setPhaseMarker, called first, reports those.
 */
export function tickPhaseCheckboxes(text: string, phaseId: PhaseId): string {
  return setPhaseCheckboxes(text, phaseId, true);
}

/** Every checkbox of the phase body ticked (`[x]`) or opened (`[ ]`), as tickPhaseCheckboxes picks them. */
export function setPhaseCheckboxes(text: string, phaseId: PhaseId, ticked: boolean): string {
  const found = editablePhase(readPlan(text), phaseId);
  if (!found.ok) return text;
  const { phase } = found;
  const lines = new EditableLines(text);
  const roles = markdownLines(text).roles;
  const [from, to] = ticked ? [OPEN_BOX, "$1x$2"] : [TICKED_BOX, "$1 $2"];
  let edited = 0;
  for (let i = phase.line; i < phase.endLine; i++) {
    const content = lines.content(i);
    if (isQuoted(roles[i]) || !from.test(content)) continue;
    lines.set(i, content.replace(from, to));
    edited++;
  }
  return edited === 0 ? text : lines.text();
}

const STATUS_LINE = /^(\s*[-*]\s+\*\*Status(?::\*\*|\*\*\s*:)\s*)\[[^\]]+\].*$/;

/**
 * Sets the plan's metadata `- **Status**: [..]` line (either bold form) to `[MARKER]`. Free text after
 * the bracket (`[PARTIAL] - Resume at Phase 6`) is dropped with the old marker: it described that state.
 * A plan without a Status line comes back unchanged with `found: false`; Baton does not invent one.
 * An invalid marker is the caller's bug (planStatusMarker gives valid ones) and throws.
 */
export function setPlanStatus(text: string, marker: string): PlanStatusEdit {
  const bad = checkMarker(marker);
  if (bad) throw new TypeError(`setPlanStatus: ${bad}`);
  const status = readPlan(text).status;
  if (status === null) return { text, changed: false, found: false };
  const lines = new EditableLines(text);
  const index = status.line - 1;
  const old = lines.content(index);
  const next = old.replace(STATUS_LINE, `$1[${marker}]`);
  if (next === old) return { text, changed: false, found: true };
  lines.set(index, next);
  return { text: lines.text(), changed: true, found: true };
}
