import { type Finding, finding, type Rule } from "../../rule-types.js";
import { fileReferences, referencedFileExists } from "./file-refs.js";

/**
 * Context files get moved and renamed while the `@` mentions pointing at them stay: the agent then
 * loads nothing (or searches for the file and guesses), and its instructions quietly lose a section.
 */
export const missingFile: Rule = {
  id: "references/missing-file",
  severity: "error",
  description: "`@path` mentions (`@.claude/context/…`, `@specs/…`) of files that do not exist",
  check(model) {
    const findings: Finding[] = [];
    for (const ref of fileReferences(model)) {
      if (referencedFileExists(model, ref)) continue;
      findings.push(
        finding(
          this,
          ref.file.path,
          ref.line,
          ref.column,
          `\`@${ref.name}\` does not exist`,
          "Point it at the file's current path (relative to the repository root), or remove the mention.",
        ),
      );
    }
    return findings;
  },
};
