/**
 * delegation/simulated-delegation: a command or skill that pretends to delegate instead of invoking an
 * agent: "simulate the agent call", a `# TODO: invoke agent` where the call should be, an `echo` of a made-up
 * agent result, a `sleep` standing in for the agent's work.
 *
 * Why: the original's workflow commands went through phases where the orchestrator printed a plausible
 * result instead of spawning the agent; no report was written, yet the status still moved on, and the
 * next operation started from an artifact that never existed. A delegation must be a real Task/Agent call.
 */
import { type FileKind, type Finding, finding, type LintFile, type Rule } from "../../rule-types.js";
import { eachFileOf, isNegated, stripShellComment, type TextLine, textLines } from "./delegation-scan.js";
import { delegationSites, ORCHESTRATOR_KINDS } from "./sites.js";

const AGENT = "(?:sub-?agents?|agents?|delegation|delegate|task tool|agent tool)";

interface Pattern {
  regex: RegExp;
  /** Only in code (a fenced block or a `.sh` command). */
  codeOnly: boolean;
  what: string;
  /** Only in a file with no delegation site at all. */
  needsNoCall?: boolean;
}

const PATTERNS: Pattern[] = [
  {
    // "Simulate the agent invocation", "simulated delegation", "(simulating research-agent)".
    regex: new RegExp(String.raw`\bsimulat(?:e|es|ed|ing|ion)\b[^.;]{0,40}?\b[\w-]*${AGENT}\b`, "i"),
    codeOnly: false,
    what: "simulates the delegation",
  },
  {
    regex: new RegExp(String.raw`\b[\w-]*${AGENT}[^.;]{0,30}?\bsimulat(?:e|es|ed|ing|ion)\b`, "i"),
    codeOnly: false,
    what: "simulates the delegation",
  },
  {
    // "mock agent result", "placeholder subagent response", "fake delegation output".
    regex: new RegExp(
      String.raw`\b(?:mock|mocked|fake|faked|dummy|stub|stubbed|placeholder)\s+(?:[\w-]+\s+){0,2}?[\w-]*${AGENT}\s+(?:call|invocation|result|response|output|return|report)s?\b`,
      "i",
    ),
    codeOnly: false,
    what: "uses a placeholder instead of the agent's result",
  },
  {
    // `# TODO: invoke the research agent`, `// TODO spawn subagent`.
    regex: new RegExp(
      String.raw`\bTODO\b:?\s*(?:[\w-]+\s+){0,2}?(?:invoke|call|spawn|delegate|launch|run|wire)\b[^\n]{0,40}?\b[\w-]*${AGENT}`,
      "",
    ),
    codeOnly: false,
    what: "leaves the delegation as a TODO",
  },
  {
    // `echo "Research agent completed"`, `echo '{"status": "researched", …}'`: only reported in a file that
    // never calls an agent (see checkFile); after a real Task call the same echo is just a log line.
    regex:
      /^\s*(?:echo|printf)\b.*(?:\b[\w-]*(?:sub-?agent|agent)\b[^"']{0,40}\b(?:completed|finished|succeeded|done)\b|\\?"status\\?"\s*:\s*\\?"(?:researched|planned|implemented|completed)\\?")/i,
    codeOnly: true,
    what: "echoes an agent result without calling the agent",
    needsNoCall: true,
  },
];

export const simulatedDelegation: Rule = {
  id: "delegation/simulated-delegation",
  severity: "error",
  description: "Commands and skills must invoke agents, not simulate, stub or fake the delegation",
  check: eachFileOf(ORCHESTRATOR_KINDS, checkFile),
};

function checkFile(file: LintFile): Finding[] {
  const lines = textLines(file);
  const calls = delegationSites(lines).length > 0;
  const out: Finding[] = [];
  lines.forEach((l, i) => {
    if (l.fence) return;
    for (const pattern of PATTERNS) {
      if ((pattern.codeOnly && !l.code) || (pattern.needsNoCall && calls)) continue;
      const match = pattern.regex.exec(l.text);
      // "Do NOT simulate the agent" is the fix, not the fault.
      if (!match || isNegated(l.text)) continue;
      out.push(report(file, l, match.index + 1, pattern.what));
      return;
    }
    if (l.code && isSleepPretence(lines, i))
      out.push(report(file, l, l.text.indexOf("sleep") + 1, "sleeps in place of the agent's work"));
  });
  return out;
}

/**
 * `sleep 5` next to agent/progress wording and outside a polling loop. A `while …; do sleep 1; done`
 * waiting for a file is real synchronisation and is left alone.
 */
function isSleepPretence(lines: TextLine[], index: number): boolean {
  const line = lines[index];
  if (!line || !/^\s*sleep\s+\d/.test(stripShellComment(line.text))) return false;
  let depth = 0;
  for (let i = index - 1; i >= 0; i--) {
    const l = lines[i];
    if (!l || l.block !== line.block || !l.code) break;
    const text = stripShellComment(l.text);
    if (/\bdone\b/.test(text)) depth--;
    if (/^\s*(while|until|for)\b/.test(text) || /;\s*do\b|^\s*do\b/.test(text)) depth++;
    if (depth > 0) return false;
  }
  const near = lines.slice(Math.max(0, index - 3), index + 4).filter((l) => l.block === line.block);
  return near.some((l) =>
    /\b(sub-?agents?|agents?|delegat\w*|analy[sz]\w*|research\w*|working|processing|thinking)\b/i.test(
      l.text,
    ),
  );
}

function report(file: LintFile, l: TextLine, column: number, what: string): Finding {
  return finding(
    simulatedDelegation,
    file.path,
    l.line,
    column,
    `${what}: ${l.text.trim().slice(0, 80)}`,
    "Invoke the agent for real (Task/Agent tool with its subagent_type, or `baton` running the routed agent) and " +
      "read what it wrote; never print or assume its result.",
  );
}
