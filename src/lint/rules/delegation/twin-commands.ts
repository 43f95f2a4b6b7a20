/**
 * delegation/twin-commands: `commands/x.sh` next to `commands/x.md`.
 *
 * Why: the host loads only the `.md` as the slash command; a `.sh` of the same name is a second,
 * diverging implementation of the same operation (the original kept shell twins of its workflow commands
 * that skipped the agent entirely). Which one ran depended on who invoked it, so fixes landed in one half.
 */
import { type Finding, finding, type LintModel, type Rule } from "../../rule-types.js";

export const twinCommands: Rule = {
  id: "delegation/twin-commands",
  severity: "warning",
  description: "A command exists both as commands/x.md and commands/x.sh",
  check(model: LintModel) {
    const byStem = new Map<string, string[]>();
    for (const command of model.commands) {
      const stem = command.file.path.replace(/\.(md|sh)$/, "");
      byStem.set(stem, [...(byStem.get(stem) ?? []), command.file.path]);
    }
    const out: Finding[] = [];
    for (const [stem, paths] of byStem) {
      const md = paths.find((p) => p.endsWith(".md"));
      const sh = paths.find((p) => p.endsWith(".sh"));
      if (!md || !sh) continue;
      const name = stem.slice(stem.lastIndexOf("/") + 1);
      out.push(
        finding(
          twinCommands,
          sh,
          1,
          1,
          `command /${name} exists twice: ${sh} and ${md}`,
          `Keep one: the Markdown command is what ${model.hostOf(md).label} runs; move any logic it needs into a script it calls (or into Baton) and delete ${sh}.`,
        ),
      );
    }
    return out;
  },
};
