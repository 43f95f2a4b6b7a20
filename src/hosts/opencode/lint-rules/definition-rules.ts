import { type Finding, finding, type LintFile, type Rule } from "../../../lint/index.js";
import { opencodeLintHost } from "../opencode-lint-host.js";
import { AGENT_MODES } from "../opencode-words.js";

const MODES: ReadonlySet<string> = new Set(AGENT_MODES);

function opencodeFiles(files: readonly LintFile[], kind: "agent" | "command"): LintFile[] {
  return files.filter(
    (f) => f.kind === kind && f.path.startsWith(`${opencodeLintHost.tree}/`) && f.path.endsWith(".md"),
  );
}

/**
 * opencode's agents and commands by opencode's rules: `mode` is subagent, primary or all; `tools` is a map of
 * tool name → true/false; commands count positionals from `$1` (a `$0` is never filled). Contract 3.2, 3.4.
 */
export const opencodeDefinitions: Rule = {
  id: "opencode/definitions",
  severity: "error",
  description: "opencode agents with a bad `mode` or `tools`, and opencode commands that use `$0`",
  check(model) {
    const findings: Finding[] = [];
    for (const file of opencodeFiles(model.files, "agent")) {
      const data = file.frontmatter?.data;
      if (!data) continue;
      const line = (key: string) => file.frontmatter?.keyLines[key] ?? 1;
      const mode = data["mode"];
      if (mode !== undefined && !(typeof mode === "string" && MODES.has(mode))) {
        findings.push(
          finding(
            this,
            file.path,
            line("mode"),
            1,
            `\`mode: ${String(mode)}\` is not an opencode agent mode; opencode cannot load this agent`,
            "Use `subagent` (for the `task` tool), `primary`, or `all`.",
          ),
        );
      }
      const tools = data["tools"];
      const isMap =
        tools !== null &&
        typeof tools === "object" &&
        !Array.isArray(tools) &&
        Object.values(tools).every((v) => typeof v === "boolean");
      if (tools !== undefined && !isMap) {
        findings.push(
          finding(
            this,
            file.path,
            line("tools"),
            1,
            "opencode's `tools` is a map of tool name to true/false, not a list",
            "Write `tools:` with one `name: true` or `name: false` line per tool (lowercase names: bash, edit, write, read, …).",
          ),
        );
      }
    }
    for (const file of opencodeFiles(model.files, "command")) {
      const start = file.frontmatter?.endLine ?? 0;
      file.lines.forEach((text, i) => {
        if (i < start || !/\$0(?!\d)/.test(text)) return;
        findings.push(
          finding(
            this,
            file.path,
            i + 1,
            text.indexOf("$0") + 1,
            "`$0` in an opencode command is never filled: opencode counts arguments from `$1`",
            "Use `$1` for the first argument (`$ARGUMENTS` for all of them).",
          ),
        );
      });
    }
    return findings;
  },
};
