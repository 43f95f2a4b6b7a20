/** One line of an edit script: kept, removed or added. */
export type Op = { kind: " " | "-" | "+"; text: string };

/**
 * The lines that turn `a` into `b`, by a plain longest-common-subsequence table (the texts diffed — init's
 * files, a plan — are small), deletions before insertions within a change as diff and git print them.
 */
export function editScript(a: string[], b: string[]): Op[] {
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
