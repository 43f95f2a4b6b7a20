import { type Finding, finding, type Rule } from "../../rule-types.js";
import { definitionFiles, kindLabel, locate } from "./definitions.js";
import { toolEntries } from "./tool-entries.js";

const TOOL_KEYS = { agent: ["tools", "disallowedTools"], other: ["allowed-tools"] };

/**
 * An agent gets exactly the tools listed (contract §7): a misspelt or space-separated entry is dropped and
 * the agent runs without that tool, failing later in a way that does not point here.
 */
export const unknownTool: Rule = {
  id: "frontmatter/unknown-tool",
  severity: "warning",
  description: "entries of `tools`, `disallowedTools` or `allowed-tools` that name no tool the host has",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const data = file.frontmatter?.data;
      const host = model.hostOf(file.path);
      const knowsTool = host.frontmatter.knowsTool;
      if (!data || knowsTool === null) continue;
      for (const key of file.kind === "agent" ? TOOL_KEYS.agent : TOOL_KEYS.other) {
        for (const entry of toolEntries(data[key])) {
          if (knowsTool(entry)) continue;
          const where = locate(file, key, entry);
          const spaced = /^\w+(\s+\w+)+$/.test(entry);
          findings.push(
            finding(
              this,
              file.path,
              where.line,
              where.column,
              `\`${key}\` of ${kindLabel(file)} lists \`${entry}\`, which is not a ${host.label} tool; it is ignored`,
              spaced
                ? `Separate tools with commas: \`${entry.split(/\s+/).join(", ")}\`.`
                : "Use a tool name (Read, Edit, Bash, Glob, Grep, …), `Bash(pattern)`, or `mcp__server__tool`.",
            ),
          );
        }
      }
    }
    return findings;
  },
};
