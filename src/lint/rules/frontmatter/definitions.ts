import type { LintFile, LintModel } from "../../rule-types.js";

/** Markdown definitions Claude Code loads through frontmatter: agents, `.md` commands and skills. */
export function definitionFiles(model: LintModel): LintFile[] {
  return model.files.filter(
    (file) =>
      file.kind === "agent" ||
      file.kind === "skill" ||
      (file.kind === "command" && file.path.endsWith(".md")),
  );
}

/** "agent", "command" or "skill": for messages, and the kind a host's frontmatter keys are listed by. */
export function kindLabel(file: LintFile): "agent" | "command" | "skill" {
  return file.kind === "agent" ? "agent" : file.kind === "skill" ? "skill" : "command";
}

/**
 * Where a value sits in the frontmatter: the first line from the key's line on that contains it (a YAML
 * list spreads over the following lines), else the key itself.
 */
export function locate(file: LintFile, key: string, needle: string): { line: number; column: number } {
  const keyLine = file.frontmatter?.keyLines[key] ?? 1;
  const end = file.frontmatter?.endLine ?? keyLine;
  for (let line = keyLine; line < end; line++) {
    const text = file.lines[line - 1] ?? "";
    const from = line === keyLine ? text.indexOf(":") + 1 : 0;
    const index = text.indexOf(needle, from);
    if (index !== -1) return { line, column: index + 1 };
  }
  return { line: keyLine, column: 1 };
}
