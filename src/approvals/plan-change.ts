import { planContent } from "../plan/index.js";
import { runGit } from "../shared/git.js";
import { inert } from "../shared/terminal-text.js";

/** The plan text a person approved, from the git object recorded with the approval; null when git lacks it. */
export async function approvedPlanText(root: string, blob: string): Promise<string | null> {
  if (!/^[0-9a-f]{40,64}$/.test(blob)) return null;
  const shown = await runGit(root, ["cat-file", "blob", blob]);
  return shown.ok ? shown.stdout : null;
}

const clip = (line: string) => inert(line.length > 80 ? `${line.slice(0, 77)}…` : line);

/**
 * What changed in a plan's content since the approved text, in a few words: the span of lines that differ
 * (after their common beginning and end) and the first of them as it reads now and as it was approved.
 * Baton's own progress edits (markers, ticked boxes, the Status line) are not changes (planContent).
 */
export function describePlanChange(approved: string, current: string): string {
  const before = planContent(approved).split("\n");
  const after = planContent(current).split("\n");
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  )
    end++;
  const added = after.slice(start, after.length - end);
  const removed = before.slice(start, before.length - end);
  const line = start + 1;
  if (added.length === 0 && removed.length === 0) return "its bytes changed, not its content";
  if (added.length === 0) return `${removed.length} line(s) removed at line ${line} ("${clip(removed[0]!)}")`;
  const span = added.length === 1 ? `line ${line}` : `lines ${line}–${line + added.length - 1}`;
  const was = removed.length > 0 ? ` (approved: "${clip(removed[0]!)}")` : " (new)";
  return `${span} changed: now "${clip(added[0]!)}"${was}`;
}
