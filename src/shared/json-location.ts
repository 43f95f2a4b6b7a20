import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { lineColumnAt } from "./errors.js";

/**
 * The 1-based line of a value in a JSON text, found by its path (`["active_projects", 2,
 * "project_number"]`): the deepest part of the path that exists, so a missing key still points at its
 * entry. Error paths only: it parses the text again.
 */
export function lineOfJsonPath(text: string, path: ReadonlyArray<string | number>): number | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const tree = parseTree(body);
  if (!tree) return undefined;
  for (let depth = path.length; depth > 0; depth--) {
    const node = findNodeAtLocation(tree, path.slice(0, depth) as (string | number)[]);
    if (!node) continue;
    // A property's value node: point at the line of its key, where an editor shows the field.
    const at = node.parent?.type === "property" ? node.parent.offset : node.offset;
    return lineColumnAt(body, at).line;
  }
  return undefined;
}

/**
 * 1-based line numbers of many offsets in one text: the line starts are found once (on first use), then
 * each lookup is a binary search. Counting from the start for each of thousands of entries was quadratic.
 */
export function lineIndex(text: string): (offset: number) => number {
  let starts: number[] | undefined;
  return (offset) => {
    if (!starts) {
      starts = [0];
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** `lineOfJsonPath` for many paths of one text: the text is parsed once, on the first lookup. */
export function jsonLineFinder(text: string): (path: ReadonlyArray<string | number>) => number | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let tree: ReturnType<typeof parseTree> | null = null;
  const lineOf = lineIndex(body);
  return (path) => {
    tree ??= parseTree(body) ?? undefined;
    if (!tree) return undefined;
    for (let depth = path.length; depth > 0; depth--) {
      const node = findNodeAtLocation(tree, path.slice(0, depth) as (string | number)[]);
      if (!node) continue;
      return lineOf(node.parent?.type === "property" ? node.parent.offset : node.offset);
    }
    return undefined;
  };
}
