/**
 * Where a command or skill hands work to an agent, and where it checks the result afterwards. Shared by
 * unverified-delegation and conditional-delegation so both agree on what "delegates" means.
 *
 * A delegation site is an instruction to call the Task/Agent tool: a `subagent_type`, a `Task(…)` /
 * `Agent(…)` call, "use the Task tool", `Tool: Task`, or a line that starts with "Invoke/Spawn the x-agent".
 * Descriptions of what someone else does ("The skill will spawn the appropriate agent") are not sites:
 * the command that says so delegates to a skill, and the skill is checked on its own.
 */
import type { FileKind } from "../../rule-types.js";
import type { TextLine } from "./delegation-scan.js";

/** The files that orchestrate: commands and skills hand work to agents (agents do the work). */
export const ORCHESTRATOR_KINDS: ReadonlySet<FileKind> = new Set<FileKind>(["command", "skill"]);

const SITE_PATTERNS: RegExp[] = [
  /\bsubagent_type\b/,
  /\b(?:Task|Agent)\s*\(\s*(?:subagent_type|description|prompt|\{|["'])/,
  /\b(?:use|invoke|call|via|using|with|through)\s+(?:the\s+)?[*`]*(?:Task|Agent)[*`]*\s+tool\b/i,
  /^\s*(?:[-*]|\d+\.)?\s*(?:\*\*)?Tool(?:\*\*)?:\s*[*`]*(?:Task|Agent)\b/,
  /^\s*(?:[-*]|\d+\.)?\s*(?:\*\*)?(?:invoke|spawn|launch|delegate to)\s+(?:the\s+)?`?[\w-]+-agent\b/i,
];

// "DO NOT use `Skill(general-research-agent)`", "never call the Task tool for this".
const SITE_NEGATION = /\b(?:do not|don't|never|must not|NOT)\s+(?:use|invoke|call|spawn|launch|delegate)\b/i;

export function isDelegationSite(text: string): boolean {
  return SITE_PATTERNS.some((p) => p.test(text)) && !SITE_NEGATION.test(text);
}

export function delegationSites(lines: TextLine[]): TextLine[] {
  return lines.filter((l, i) => !l.fence && isDelegationSite(l.text) && !describesOther(lines, i));
}

/**
 * An item of a list introduced by "The skill will:" / "The subagent will:" describes what the callee
 * does, not what this file does ("3. Invoke meta-builder-agent" under "The skill will:").
 */
function describesOther(lines: TextLine[], index: number): boolean {
  if (!/^\s*(?:[-*]|\d+\.)\s/.test(lines[index]?.text ?? "")) return false;
  for (let i = index - 1; i >= 0; i--) {
    const text = lines[i]?.text ?? "";
    if (text.trim() === "") return false;
    if (/^\s*(?:[-*]|\d+\.)\s/.test(text)) continue;
    return /\b(?:will|does|then)\b[^.]*:\s*$/i.test(text);
  }
  return false;
}

const META = /return-meta|\.meta\.json|metadata[_ ]file|metadata_path/i;
const READ = /\b(?:jq|cat|read|reads|parse|parses|validat\w*|check\w*|verif\w*|exists?|load)\b|-[fs]\s/i;

const VERIFY_PATTERNS: RegExp[] = [
  /\bgate-out\b/,
  /\bGATE[ _-]OUT\b/,
  /\[\[?\s+!?\s*-[fsed]\s/,
  /\btest\s+-[fsed]\s/,
  /\b(?:verify|verifies|validate|validates|check|checks|confirm|confirms|ensure)\b[^.]{0,60}\b(?:artifacts?|reports?|plans?|summar(?:y|ies)|files?|outputs?|status|return(?:ed)?|result)\b/i,
  /\b(?:artifacts?|reports?|plans?|summary|files?|outputs?)\b[^.]{0,40}\bexists?\b/i,
  /\bjq\b[^|]*['"]\.status\b/,
];

/** Whether a line reads or checks what the agent produced. */
export function isVerification(text: string): boolean {
  if (META.test(text) && READ.test(text)) return true;
  return VERIFY_PATTERNS.some((p) => p.test(text));
}

/** Looser: any mention of handing work to an agent, used to tell whether a file delegates at all. */
export function mentionsDelegation(text: string): boolean {
  return (
    isDelegationSite(text) ||
    /\b(?:spawn\w*|invok\w*|delegat\w*)\b[^.]{0,40}\b(?:sub-?agents?|agents?|teammates?)\b/i.test(text) ||
    /\bTeammateTool\b/.test(text)
  );
}
