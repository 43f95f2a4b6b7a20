import { isDeepStrictEqual } from "node:util";
import { type Node, parseTree } from "jsonc-parser";

interface Edit {
  offset: number;
  length: number;
  content: string;
}

/**
 * Rewrites only the parts of `text` whose values differ between `before` and `after`. Used for
 * hand-formatted JSON (errors.json, reviews/state.json) so a one-entry change stays a one-entry diff.
 */
export function renderMinimalEdit(text: string, before: unknown, after: unknown, indent: string): string {
  const root = parseTree(text);
  if (!root) return JSON.stringify(after, null, indent) + (text.endsWith("\n") ? "\n" : "");
  const edits: Edit[] = [];
  diffNode(text, root, before, after, indent, edits);
  edits.sort((a, b) => b.offset - a.offset);
  let out = text;
  for (const edit of edits) {
    out = out.slice(0, edit.offset) + edit.content + out.slice(edit.offset + edit.length);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lineIndentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))?.[0] ?? "";
}

function serializeAt(value: unknown, baseIndent: string, indent: string): string {
  return JSON.stringify(value, null, indent).replace(/\n/g, `\n${baseIndent}`);
}

function replaceNode(text: string, node: Node, value: unknown, indent: string, edits: Edit[]): void {
  const base = lineIndentAt(text, node.offset);
  edits.push({ offset: node.offset, length: node.length, content: serializeAt(value, base, indent) });
}

function diffNode(text: string, node: Node, before: unknown, after: unknown, indent: string, edits: Edit[]) {
  if (isDeepStrictEqual(before, after)) return;
  if (isPlainObject(before) && isPlainObject(after) && node.type === "object") {
    diffObject(text, node, before, after, indent, edits);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && node.type === "array") {
    diffArray(text, node, before, after, indent, edits);
    return;
  }
  replaceNode(text, node, after, indent, edits);
}

function diffObject(
  text: string,
  node: Node,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  indent: string,
  edits: Edit[],
) {
  const props = node.children ?? [];
  const beforeKeys = Object.keys(before);
  const afterKeys = Object.keys(after);
  const kept = afterKeys.filter((k) => k in before);
  // A reordering of existing keys cannot be expressed as local edits; rewrite this object.
  if (kept.join("\0") !== beforeKeys.filter((k) => k in after).join("\0")) {
    replaceNode(text, node, after, indent, edits);
    return;
  }
  const propNode = new Map<string, Node>();
  for (const prop of props) {
    const keyNode = prop.children?.[0];
    if (keyNode) propNode.set(String(keyNode.value), prop);
  }
  const removed = beforeKeys.filter((k) => !(k in after));
  for (const key of removed) {
    const prop = propNode.get(key);
    if (!prop) continue;
    removeElement(node, prop, edits);
  }
  for (const key of kept) {
    const valueNode = propNode.get(key)?.children?.[1];
    if (valueNode) diffNode(text, valueNode, before[key], after[key], indent, edits);
  }
  const added = afterKeys.filter((k) => !(k in before));
  if (added.length > 0) {
    const entries = added.map((k) => [k, after[k]] as const);
    appendMembers(text, node, entries, indent, edits, props.length - removed.length === 0);
  }
}

function diffArray(
  text: string,
  node: Node,
  before: unknown[],
  after: unknown[],
  indent: string,
  edits: Edit[],
) {
  const items = node.children ?? [];
  if (before.length === after.length) {
    for (let i = 0; i < before.length; i++) diffNode(text, items[i]!, before[i], after[i], indent, edits);
    return;
  }
  let prefix = 0;
  while (
    prefix < before.length &&
    prefix < after.length &&
    isDeepStrictEqual(before[prefix], after[prefix])
  ) {
    prefix++;
  }
  let suffix = 0;
  while (
    suffix < before.length - prefix &&
    suffix < after.length - prefix &&
    isDeepStrictEqual(before[before.length - 1 - suffix], after[after.length - 1 - suffix])
  ) {
    suffix++;
  }
  const removedCount = before.length - prefix - suffix;
  const inserted = after.slice(prefix, after.length - suffix);
  if (removedCount > 0 && inserted.length > 0) {
    replaceNode(text, node, after, indent, edits);
    return;
  }
  if (removedCount > 0) {
    for (let i = prefix; i < prefix + removedCount; i++) removeElement(node, items[i]!, edits);
    return;
  }
  if (items.length === 0) {
    replaceNode(text, node, after, indent, edits);
    return;
  }
  if (prefix === before.length) {
    appendMembers(
      text,
      node,
      inserted.map((v) => [undefined, v] as const),
      indent,
      edits,
      false,
    );
    return;
  }
  const anchor = items[prefix]!;
  const base = lineIndentAt(text, anchor.offset);
  const separator = separatorBefore(text, anchor, items[prefix - 1] ?? null, node);
  const content = inserted.map((v) => serializeAt(v, base, indent)).join(`,${separator}`);
  edits.push({ offset: anchor.offset, length: 0, content: `${content},${separator}` });
}

/** The whitespace between two neighbouring elements, so inserted ones follow the file's own layout. */
function separatorBefore(text: string, item: Node, previous: Node | null, container: Node): string {
  if (previous) {
    const between = text.slice(previous.offset + previous.length, item.offset);
    return between.replace(/^\s*,/, "");
  }
  const between = text.slice(container.offset + 1, item.offset);
  return between.length > 0 ? between : " ";
}

function removeElement(container: Node, element: Node, edits: Edit[]) {
  const siblings = container.children ?? [];
  const index = siblings.indexOf(element);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  if (previous) {
    const start = previous.offset + previous.length;
    edits.push({ offset: start, length: element.offset + element.length - start, content: "" });
  } else if (next) {
    edits.push({ offset: element.offset, length: next.offset - element.offset, content: "" });
  } else {
    const start = container.offset + 1;
    const end = container.offset + container.length - 1;
    edits.push({ offset: start, length: end - start, content: "" });
  }
}

function appendMembers(
  text: string,
  container: Node,
  entries: ReadonlyArray<readonly [string | undefined, unknown]>,
  indent: string,
  edits: Edit[],
  empty: boolean,
) {
  const children = container.children ?? [];
  const last = children[children.length - 1];
  const containerIndent = lineIndentAt(text, container.offset);
  const render = (base: string, [key, value]: readonly [string | undefined, unknown]) =>
    (key === undefined ? "" : `${JSON.stringify(key)}: `) + serializeAt(value, base, indent);
  if (!last || empty) {
    const base = containerIndent + indent;
    const body = entries.map((e) => base + render(base, e)).join(",\n");
    const close = container.type === "object" ? "}" : "]";
    const open = container.type === "object" ? "{" : "[";
    edits.push({
      offset: container.offset,
      length: container.length,
      content: `${open}\n${body}\n${containerIndent}${close}`,
    });
    return;
  }
  const previous = children[children.length - 2];
  const separator = previous
    ? text.slice(previous.offset + previous.length, last.offset).replace(/^\s*,/, "")
    : `\n${containerIndent}${indent}`;
  const base = separator.includes("\n") ? separator.slice(separator.lastIndexOf("\n") + 1) : containerIndent;
  const content = entries.map((e) => `,${separator}${render(base, e)}`).join("");
  edits.push({ offset: last.offset + last.length, length: 0, content });
}
