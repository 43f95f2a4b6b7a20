/**
 * Path normalisation shared by the file-system reader and the in-memory builder, so a rule sees the
 * same `a/b/c` form whether the model came from disk or from a test's texts.
 */

export { isInsideRoot, normalizePath } from "../shared/repo-paths.js";

/** Converts a 0-based offset to a 1-based line and column using precomputed line starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

export function positionAt(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
}
