import { createHash } from "node:crypto";
import { setPhaseCheckboxes, setPhaseMarker, setPlanStatus } from "./edit.js";
import { parsePlan } from "./parse.js";

/**
 * The plan as its author wrote it: every edit Baton itself makes while it runs the plan (each phase's
 * marker, its ticked checkboxes, the Status line) set back to one fixed form. Two texts that differ only by
 * Baton's progress have the same content, so an approval holds while the plan runs and breaks on any other
 * change — a phase's words, its dependencies, a phase added or removed.
 */
export function planContent(text: string): string {
  const parsed = parsePlan("", text);
  const plan = parsed.ok ? parsed.plan : parsed.partial;
  let content = text;
  for (const phase of plan.phases) {
    if (phase.carried) continue;
    if (phase.marker !== null) {
      const reset = setPhaseMarker(content, phase.id, "NOT STARTED");
      if (reset.ok) content = reset.text;
    }
    content = setPhaseCheckboxes(content, phase.id, false);
  }
  return setPlanStatus(content, "NOT STARTED").text;
}

/** SHA-256 (hex) of planContent(text): what an approval of the plan is bound to. */
export function planContentHash(text: string): string {
  return createHash("sha256").update(planContent(text)).digest("hex");
}
