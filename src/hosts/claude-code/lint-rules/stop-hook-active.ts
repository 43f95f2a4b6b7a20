/**
 * hooks/stop-hook-active: a Stop or SubagentStop hook that can block the stop (`"decision": "block"`,
 * exit 2, `additionalContext`) but never reads `stop_hook_active` from its stdin.
 *
 * Why: Claude Code sets `stop_hook_active: true` on every Stop that follows a block; a hook that ignores
 * it blocks again and again until Claude Code's cap overrides it on the 9th block, and the run ends with an
 * empty result. The original's SubagentStop hook looked for `"stop_hook_active": true` in its own marker
 * file, never in the hook input, so it needed a second counter file (the loop guard) that then leaked
 * into commits. A hook that never blocks cannot loop and is not reported.
 */

import {
  type Finding,
  finding,
  type HookEntry,
  isComment,
  type LintModel,
  type Rule,
} from "../../../lint/index.js";

const STOP_EVENTS = new Set(["Stop", "SubagentStop"]);
const BLOCKS: RegExp[] = [
  /\bdecision\b\\?["']?\s*:\s*\\?["']block\b/,
  /^\s*exit\s+2\b|[;&|]\s*exit\s+2\b|\b(?:sys|process)\.exit\(\s*2\s*\)/,
  /\badditionalContext\b/,
];
// Ways a hook reads its input JSON.
const STDIN: RegExp[] = [
  /\$\(\s*cat\s*(?:-\s*)?\)/,
  /\bcat\s+(?:-\s*$|-\s*[|)]|\/dev\/stdin)/,
  /<\s*\/dev\/stdin|\$\(<\s*\/dev\/stdin\)/,
  /^\s*(?:IFS=\S*\s+)?read\s+(?:-\w+\s+)*\w+\s*(?:$|;)/,
  /\bsys\.stdin\b|\binput\(\)/,
  /\bprocess\.stdin\b|readFileSync\(\s*(?:0|["']\/dev\/stdin["'])/,
  // `jq -e '.stop_hook_active'` with no file argument reads stdin itself.
  /\bjq\b[^|<]*['"][^'"]*stop_hook_active[^'"]*['"]\s*(?:$|[);>]|2>|&&|\|\||then\b)/,
];

export const stopHookActive: Rule = {
  id: "hooks/stop-hook-active",
  severity: "error",
  description: "A blocking Stop/SubagentStop hook must read stop_hook_active from its input",
  check(model: LintModel) {
    const out: Finding[] = [];
    const seen = new Set<string>();
    for (const hook of model.hooks) {
      if (!STOP_EVENTS.has(hook.event) || !hook.command || (hook.type !== "command" && hook.type !== ""))
        continue;
      const sources = hook.scripts.flatMap((path) => {
        const file = model.byPath.get(path);
        return file ? [{ path, lines: file.lines }] : [];
      });
      // An inline command is judged on its own text, reported at the settings entry.
      if (hook.scripts.length === 0) sources.push({ path: hook.file.path, lines: [hook.command] });
      for (const source of sources) {
        const key = source.path === hook.file.path ? `${source.path}:${hook.line}` : source.path;
        if (seen.has(key)) continue;
        seen.add(key);
        const problem = judge(source.lines);
        if (problem) out.push(report(hook, source.path, problem));
      }
    }
    return out;
  },
};

interface Problem {
  line: number;
  reason: string;
}

function judge(lines: string[]): Problem | null {
  const code = lines.map((text, i) => ({ text, line: i + 1 })).filter((l) => !isComment(l.text));
  const block = code.find((l) => BLOCKS.some((p) => p.test(l.text)));
  if (!block) return null;
  const mentions = code.some((l) => /stop_hook_active/.test(l.text));
  const stdin = code.some((l) => STDIN.some((p) => p.test(l.text)));
  if (mentions && stdin) return null;
  const reason = mentions
    ? "checks stop_hook_active in a file, never in the hook's stdin"
    : stdin
      ? "reads its input but never checks stop_hook_active"
      : "never reads its input, so it cannot see stop_hook_active";
  return { line: block.line, reason };
}

function report(hook: HookEntry, path: string, problem: Problem): Finding {
  const inline = path === hook.file.path;
  return finding(
    stopHookActive,
    path,
    inline ? hook.line : problem.line,
    inline ? hook.column : 1,
    `${hook.event} hook can block the stop but ${problem.reason}; it will block until Claude Code's cap (9)`,
    "Read the hook input (`input=$(cat)`) and allow the stop when it is a continuation: " +
      "`[ \"$(jq -r '.stop_hook_active' <<<\"$input\")\" = true ] && { echo '{}'; exit 0; }`.",
  );
}
