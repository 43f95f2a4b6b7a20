/**
 * hooks/not-executable: a hook command runs a script directly (`.claude/hooks/x.sh`,
 * `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`) but the script has no executable bit, on disk or in git.
 *
 * Why: the hook then fails with "Permission denied" on every event (exit 126, a non-blocking error Claude
 * Code does not show the model), so a guard silently never runs. A script committed as mode 100644 works
 * on the author's machine and fails on every fresh clone. Running it as `bash x.sh` needs no bit and is
 * not reported.
 */
import { type Finding, finding, INTERPRETERS, type LintModel, type Rule } from "../../../lint/index.js";

// Interpreters read the script themselves; `exec` is not one of them (it needs the bit).
const RUNNERS = INTERPRETERS;

export const notExecutable: Rule = {
  id: "hooks/not-executable",
  severity: "warning",
  description: "A script a hook runs directly must have the executable bit",
  check(model: LintModel) {
    const out: Finding[] = [];
    for (const hook of model.hooks) {
      for (const script of hook.scripts) {
        const file = model.byPath.get(script);
        if (!file || !hook.command || !runsDirectly(hook.command, script)) continue;
        const inGit =
          model.tracked?.has(script) && model.trackedExecutable ? model.trackedExecutable.has(script) : true;
        if (file.executable && inGit) continue;
        const where = file.executable
          ? "is committed without the executable bit (git mode 100644)"
          : "is not executable";
        out.push(
          finding(
            notExecutable,
            hook.file.path,
            hook.line,
            hook.column,
            `${hook.event} hook runs ${script} directly, but it ${where}`,
            file.executable
              ? `Run \`git update-index --chmod=+x ${script}\` and commit, or call it as \`bash ${script}\`.`
              : `Run \`chmod +x ${script}\` (and commit the mode), or call it as \`bash ${script}\`.`,
          ),
        );
      }
    }
    return out;
  },
};

/** Whether some occurrence of the script in the command is not preceded by an interpreter. */
export function runsDirectly(command: string, script: string): boolean {
  const base = script.slice(script.lastIndexOf("/") + 1);
  for (let at = command.indexOf(base); at !== -1; at = command.indexOf(base, at + 1)) {
    // The shell word holding this occurrence starts after the last separator before it.
    let start = at;
    while (start > 0 && !/[\s;|&()]/.test(command[start - 1] ?? "")) start--;
    const before = command.slice(0, start).trimEnd();
    const words = before.split(/[\s;|&()]+/).filter((w) => w !== "");
    let i = words.length - 1;
    while (i >= 0 && (words[i] ?? "").startsWith("-")) i--;
    const runner = (words[i] ?? "").replace(/^["']|["']$/g, "");
    const name = runner.slice(runner.lastIndexOf("/") + 1);
    // Only words ending in the script count (not `x.sh.bak`).
    const end = at + base.length;
    if (/[\w.-]/.test(command[end] ?? "")) continue;
    if (!RUNNERS.has(name) || /[;|&(]\s*$/.test(before)) return true;
  }
  return false;
}
