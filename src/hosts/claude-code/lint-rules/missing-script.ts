/**
 * hooks/missing-script: a hook command runs a script that is not in the repository.
 *
 * Why: Claude Code runs the command anyway; `bash .claude/hooks/gone.sh` fails on every event, and with
 * the original's `2>/dev/null || echo '{}'` wrapper the failure was invisible: the SubagentStop guard the
 * postflight relied on simply stopped existing after a rename. Scripts outside the repository (`~/…`,
 * absolute paths) cannot be checked here and are not reported.
 */
import { type Finding, finding, type LintModel, type Rule } from "../../../lint/index.js";

export const missingScript: Rule = {
  id: "hooks/missing-script",
  severity: "error",
  description: "A hook command runs a script that does not exist",
  check(model: LintModel) {
    const out: Finding[] = [];
    for (const hook of model.hooks) {
      for (const script of hook.scripts) {
        if (model.exists(script)) continue;
        out.push(
          finding(
            missingScript,
            hook.file.path,
            hook.line,
            hook.column,
            `${hook.event} hook runs ${script}, which does not exist`,
            `Restore ${script} or remove the hook from ${hook.file.path}; paths are relative to the project folder (the hook's cwd).`,
          ),
        );
      }
    }
    return out;
  },
};
