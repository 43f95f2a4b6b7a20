/**
 * hooks/swallowed-errors: a hook that turns its own failure into success: `bash x.sh 2>/dev/null || echo '{}'`,
 * `|| true`, `|| exit 0` in a settings command; `… 2>/dev/null || echo '{}'`, `trap 'echo {}; exit 0' ERR`
 * or `exec 2>/dev/null` inside a hook script.
 *
 * Why: every hook of the original was wrapped this way. A crashing or missing hook looked exactly like a
 * hook with no opinion, so broken guards went unnoticed; an exit 2 (a deliberate block) became exit 0 with
 * its reason thrown away; and a script that printed JSON and then failed got `{}` appended, which is no
 * longer valid JSON. Let hooks fail loudly (Claude Code reports non-zero exits) or handle errors in the
 * script where the decision is made.
 */

import { type Finding, finding, isComment, type LintModel, type Rule } from "../../../lint/index.js";

// `|| echo '{}'` (any quoting, escaped or not), `|| true`, `|| :`, `|| exit 0`, or a trailing `; exit 0`.
const EMPTY_JSON = String.raw`\\?["']?\{\s*\}\\?["']?`;
const FALLBACK = new RegExp(
  String.raw`\|\|\s*(?:echo\s+(?:-n\s+)?${EMPTY_JSON}|printf\s+${EMPTY_JSON}|true\b|:(?=\s|$|;|\))|exit\s+0\b)|;\s*exit\s+0\s*$`,
);
const SCRIPT_PATTERNS: { regex: RegExp; what: string }[] = [
  {
    regex: new RegExp(String.raw`\|\|\s*(?:echo|printf)\s+(?:-n\s+)?${EMPTY_JSON}`),
    what: "prints `{}` when a command fails",
  },
  {
    regex: /\btrap\s+(["'])(?:(?!\1).)*(?:\{\s*\}|exit\s+0)(?:(?!\1).)*\1\s+ERR\b/,
    what: "traps errors and exits as if nothing happened",
  },
  { regex: /^\s*exec\s+2>\s*\/dev\/null\s*$/, what: "discards all of its stderr" },
];

export const swallowedErrors: Rule = {
  id: "hooks/swallowed-errors",
  severity: "warning",
  description: "Hooks must not hide their own failures (2>/dev/null || echo '{}')",
  check(model: LintModel) {
    const out: Finding[] = [];
    for (const hook of model.hooks) {
      const match = hook.command ? FALLBACK.exec(hook.command) : null;
      if (!hook.command || !match) continue;
      const quiet = /2>\s*\/dev\/null/.test(hook.command) ? " and its stderr is discarded" : "";
      out.push(
        finding(
          swallowedErrors,
          hook.file.path,
          hook.line,
          hook.column,
          `${hook.event} hook turns a failure into success (\`${match[0].trim()}\`)${quiet}`,
          "Drop the fallback: let the script's exit code and stderr reach Claude Code (exit 2 blocks with stderr as " +
            "the reason). Handle expected failures inside the script and print one JSON object.",
        ),
      );
    }
    const scripts = new Set(model.hooks.flatMap((h) => h.scripts));
    for (const file of model.files) {
      if (file.kind !== "hook-script" && !scripts.has(file.path)) continue;
      file.lines.forEach((text, i) => {
        if (isComment(text)) return;
        for (const { regex, what } of SCRIPT_PATTERNS) {
          const match = regex.exec(text);
          if (!match) continue;
          out.push(
            finding(
              swallowedErrors,
              file.path,
              i + 1,
              match.index + 1,
              `hook script ${what}: ${text.trim().slice(0, 80)}`,
              "Let the failure show (non-zero exit, message on stderr), or handle the specific error and print " +
                "a deliberate decision.",
            ),
          );
          return;
        }
      });
    }
    return out;
  },
};
