/**
 * A unified diff (`diff -u` / `git diff` layout, 3 lines of context) for `--dry-run`. The files init
 * touches are small, so a plain LCS table is fast enough and keeps this free of a diff dependency.
 */
type Op = { kind: " " | "-" | "+"; text: string };

const NO_NEWLINE = "\\ No newline at end of file";

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (text.endsWith("\n")) parts.pop();
  else parts[parts.length - 1] += `\n${NO_NEWLINE}`;
  return parts;
}

function editScript(a: string[], b: string[]): Op[] {
  // Beyond this size a whole replacement is still a correct diff, just a longer one.
  if (a.length * b.length > 4_000_000) {
    return [
      ...a.map((text) => ({ kind: "-" as const, text })),
      ...b.map((text) => ({ kind: "+" as const, text })),
    ];
  }
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i++]! });
      j++;
    } else if (j < b.length && (i === a.length || lcs[i * width + j + 1]! >= lcs[(i + 1) * width + j]!)) {
      ops.push({ kind: "+", text: b[j++]! });
    } else {
      ops.push({ kind: "-", text: a[i++]! });
    }
  }
  // Deletions before insertions within a change, as diff and git print them.
  for (let k = 1; k < ops.length; k++) {
    let m = k;
    while (m > 0 && ops[m]!.kind === "-" && ops[m - 1]!.kind === "+") {
      [ops[m - 1], ops[m]] = [ops[m]!, ops[m - 1]!];
      m--;
    }
  }
  return ops;
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
