import { type Finding, finding, type Rule } from "../../rule-types.js";

/**
 * Commands work without frontmatter, but the Skill tool listing (contract §9) shows each command by its
 * description; without one the model sees a bare name and cannot choose it.
 */
export const missingDescription: Rule = {
  id: "frontmatter/missing-description",
  severity: "warning",
  description: "commands without a `description`",
  check(model) {
    const findings: Finding[] = [];
    for (const file of model.files) {
      if (file.kind !== "command" || !file.path.endsWith(".md")) continue;
      const fm = file.frontmatter;
      if (fm && !fm.data) continue;
      const value = fm?.data?.["description"];
      if (typeof value === "string" && value.trim() !== "") continue;
      findings.push(
        finding(
          this,
          file.path,
          fm?.keyLines["description"] ?? 1,
          1,
          fm ? "command frontmatter lacks `description`" : "command has no frontmatter, so no `description`",
          `Add \`description: <what it does>\` in a \`---\` block at the top; ${model.hostOf(file.path).label} lists commands by it.`,
        ),
      );
    }
    return findings;
  },
};
