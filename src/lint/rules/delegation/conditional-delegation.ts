/**
 * delegation/conditional-delegation: a command or skill that delegates only sometimes: "If the task is
 * simple, do it directly", "**If wave has single phase**: Execute directly", "if …; then invoke the agent
 * else handle it yourself".
 *
 * Why: every path the orchestrator takes itself skips the agent protocol: no metadata file, no marker,
 * no artifact check, and the work lands in the orchestrator's context. In the original the "simple" branch
 * was where premature stops and unlinked artifacts came from, and the condition ("simple", "single
 * phase") was the model's own judgement, so the same task took different paths on different runs.
 */
import { type Finding, finding, type LintModel, type Rule } from "../../rule-types.js";
import { heading, isNegated, type TextLine, textLines } from "./delegation-scan.js";
import { mentionsDelegation, ORCHESTRATOR_KINDS } from "./sites.js";

// The orchestrator doing the work itself.
const YOURSELF: RegExp[] = [
  /\b(?:execute|do|handle|implement|perform|run|complete|fix|write|make|answer|apply|process)\w*\s+(?:it\s+|this\s+|them\s+|that\s+|the\s+[\w-]+\s+(?:[\w-]+\s+)?)?(?:directly|yourself|inline|in the main (?:thread|context|session|conversation))\b/i,
  /\b(?:do|handle|implement|write|fix) (?:it|this|them) (?:yourself|myself|ourselves)\b/i,
  /\bskip (?:the )?(?:delegation|subagent|sub-agent|agent)\b/i,
  /\bno need to (?:delegate|spawn|invoke)\b/i,
  /\bwithout (?:delegating|delegation|spawning (?:a |an )?(?:sub-?agent|agent|teammate)|invoking (?:a |an |the )?(?:sub-?agent|agent))\b/i,
];

// "If …", "otherwise", "else"; "when" only about the task's size ("When the fix is small"), since "When the
// agent returns, read its metadata directly" is about time, not a choice between two paths.
const SIZE = "(?:simple|small|trivial|quick|single|one|minor|few|short|easy|straightforward|obvious|tiny)";
const CONDITION = new RegExp(String.raw`\b(?:if|unless|otherwise|else|elif)\b|\bwhen\b.*\b${SIZE}\b`, "i");
const CONDITION_START = new RegExp(
  String.raw`^\s*(?:[-*]|\d+\.|#{1,6})?\s*(?:\*\*|_)?(?:(?:if|unless|otherwise|else|elif)\b|when\b.*\b${SIZE}\b|for ${SIZE}\b)`,
  "i",
);

export const conditionalDelegation: Rule = {
  id: "delegation/conditional-delegation",
  severity: "warning",
  description: "Delegation must not depend on a condition that lets the orchestrator do the work itself",
  check(model: LintModel) {
    const out: Finding[] = [];
    for (const file of model.files) {
      if (!ORCHESTRATOR_KINDS.has(file.kind)) continue;
      const lines = textLines(file);
      // A skill that never delegates ("executes inline without spawning a subagent") has no choice to make.
      const delegates = lines.some(
        (l) => mentionsDelegation(l.text) && !isNegated(l.text) && !/\bwithout\b/i.test(l.text),
      );
      if (!delegates) continue;
      lines.forEach((l, i) => {
        if (l.fence) return;
        const match = YOURSELF.map((p) => p.exec(l.text)).find((m) => m !== null);
        if (!match || forbids(l.text, match.index) || !underCondition(lines, i, match.index)) return;
        out.push(
          finding(
            conditionalDelegation,
            file.path,
            l.line,
            match.index + 1,
            `delegation is conditional: "${l.text.trim().slice(0, 80)}"`,
            "Always delegate the operation to its agent; if small tasks need less, give the agent a lighter prompt " +
              "or route to a cheaper agent, but keep one path with the metadata file and artifact checks.",
          ),
        );
      });
    }
    return out;
  },
};

/**
 * "NEVER implements changes directly", "do not fix it yourself": the phrase is forbidden, not offered. The
 * generic negation test would also drop "If the task is not complex, do it directly", so only a negation
 * in the phrase's own clause, or an emphatic NOT/NEVER, counts.
 */
function forbids(text: string, column: number): boolean {
  return (
    /\b(?:NOT|NEVER|DON'T)\b/.test(text) ||
    /\b(?:not|never|don't|do not|must not|cannot|avoid|instead of)\b[^.;,:]{0,25}$/i.test(
      text.slice(0, column),
    )
  );
}

/** The phrase follows a condition on its own line, or sits under an "If …:" line, heading or `if` block. */
function underCondition(lines: TextLine[], index: number, column: number): boolean {
  const line = lines[index];
  if (!line) return false;
  if (CONDITION.test(line.text.slice(0, column))) return true;
  for (let i = index - 1; i >= Math.max(0, index - 3); i--) {
    const l = lines[i];
    if (!l || l.text.trim() === "") return false;
    // Only a line that introduces what follows: "**If wave has single phase**:", "### If …", `if …; then`.
    const introduces = /:\**\s*$|\bthen\s*$|^\s*else\b|\{\s*$/.test(l.text) || heading(l.text) !== null;
    if (CONDITION_START.test(l.text) && introduces) return true;
    if (heading(l.text) !== null && !l.code) return false;
  }
  return false;
}
