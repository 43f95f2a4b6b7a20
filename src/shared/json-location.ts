import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { lineIndex } from "./lines.js";

/**
 * The 1-based line of a value in a JSON text, found by its path (`["active_projects", 2,
 * "project_number"]`): the deepest part of the path that exists, so a missing key still points at its
 * entry. Error paths only: it parses the text again.
 */
export function lineOfJsonPath(text: string, path: ReadonlyArray<string | number>): number | undefined {
  return jsonLineFinder(text)(path);
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
      // A property's value node: point at the line of its key, where an editor shows the field.
      return lineOf(node.parent?.type === "property" ? node.parent.offset : node.offset);
    }
    return undefined;
  };
}
