import { NEXT_NUMBER_LINE, RawSegment, type TodoDocument } from "./todo-document.js";

/** TODO.md's frontmatter holds `next_project_number`, kept equal to state.json's. */

export function frontmatterNextNumber(doc: TodoDocument): number | undefined {
  for (const line of doc.frontmatter?.lines ?? []) {
    const match = NEXT_NUMBER_LINE.exec(line);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** Rewrites only the `next_project_number:` line, as the original's sed did; adds it if absent. */
export function setFrontmatterNextNumber(doc: TodoDocument, next: number): void {
  if (!doc.frontmatter) {
    doc.frontmatter = new RawSegment({ lines: ["---", `next_project_number: ${next}`, "---"] });
    return;
  }
  const lines = doc.frontmatter.lines;
  const i = lines.findIndex((line) => NEXT_NUMBER_LINE.test(line));
  if (i !== -1) lines[i] = `next_project_number: ${next}`;
  else lines.splice(1, 0, `next_project_number: ${next}`);
}
