import { editScript } from "../shared/line-diff.js";

/**
 * A unified diff (`diff -u` / `git diff` layout, 3 lines of context) for `--dry-run`. The files init
 * touches are small, so a plain LCS table is fast enough and keeps this free of a diff dependency.
 */

const NO_NEWLINE = "\\ No newline at end of file";

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (text.endsWith("\n")) parts.pop();
  else parts[parts.length - 1] += `\n${NO_NEWLINE}`;
  return parts;
}

function range(start: number, count: number): string {
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/** `before`/`after` null = the file does not exist on that side. Empty string when nothing differs. */
export function unifiedDiff(path: string, before: string | null, after: string | null, context = 3): string {
  if (before === after) return "";
  const ops = editScript(lines(before ?? ""), lines(after ?? ""));
  const changed = ops.flatMap((op, index) => (op.kind === " " ? [] : [index]));
  if (changed.length === 0) return "";
  const out = [
    before === null ? "--- /dev/null" : `--- a/${path}`,
    after === null ? "+++ /dev/null" : `+++ b/${path}`,
  ];
  let cursor = 0;
  while (cursor < changed.length) {
    let end = cursor;
    while (end + 1 < changed.length && changed[end + 1]! - changed[end]! <= 2 * context + 1) end++;
    const from = Math.max(0, changed[cursor]! - context);
    const to = Math.min(ops.length, changed[end]! + context + 1);
    let oldLine = 1;
    let newLine = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== "+") oldLine++;
      if (op.kind !== "-") newLine++;
    }
    const hunk = ops.slice(from, to);
    const oldCount = hunk.filter((op) => op.kind !== "+").length;
    const newCount = hunk.filter((op) => op.kind !== "-").length;
    out.push(`@@ -${range(oldLine, oldCount)} +${range(newLine, newCount)} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.text}`);
    cursor = end + 1;
  }
  return `${out.join("\n")}\n`;
}
