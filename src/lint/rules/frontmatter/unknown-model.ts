import { type Finding, finding, type Rule } from "../../rule-types.js";
import { definitionFiles, kindLabel, locate } from "./definitions.js";

/** A model the host cannot resolve fails the call at run time, long after the file was written. */
export const unknownModel: Rule = {
  id: "frontmatter/unknown-model",
  severity: "error",
  description:
    "`model` values that are neither an alias (sonnet, opus, haiku, fable, inherit) nor a Claude model id",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const value = file.frontmatter?.data?.["model"];
      if (value === undefined || value === null) continue;
      const text = String(value);
      const host = model.hostOf(file.path);
      if (typeof value === "string" && host.frontmatter.knowsModel(text.trim())) continue;
      const where = locate(file, "model", text);
      findings.push(
        finding(
          this,
          file.path,
          where.line,
          where.column,
          `${kindLabel(file)} \`model: ${text}\` is not a model ${host.label} knows`,
          host.frontmatter.modelHint,
        ),
      );
    }
    return findings;
  },
};
