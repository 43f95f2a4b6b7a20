import { getNodeValue, type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { hookScripts } from "../../shared/hook-scripts.js";
import type { HookEntry, LintFile } from "../rule-types.js";
import { lineStarts, positionAt } from "../tree-paths.js";

export interface ParsedJson {
  /** The parsed value; null when the text is not JSON at all. */
  data: unknown;
  /** Claude Code reads settings as strict JSON: comments and trailing commas are errors here too. */
  errors: { message: string; line: number; column: number }[];
}

/** Parses a settings file once, keeping the syntax tree so hook handlers get their positions. */
export function parseSettings(file: LintFile, root: string): { json: ParsedJson; hooks: HookEntry[] } {
  const parseErrors: ParseError[] = [];
  const tree = parseTree(file.text, parseErrors, { disallowComments: true, allowTrailingComma: false });
  const starts = lineStarts(file.text);
  const errors = parseErrors.map((error) => ({
    message: `invalid JSON: ${printParseErrorCode(error.error)}`,
    ...positionAt(starts, error.offset),
  }));
  const json: ParsedJson = { data: tree ? getNodeValue(tree) : null, errors };
  return { json, hooks: tree ? hookEntries(tree, file, starts, root) : [] };
}

function hookEntries(tree: Node, file: LintFile, starts: number[], root: string): HookEntry[] {
  const hooks = property(tree, "hooks");
  if (hooks?.type !== "object") return [];
  const out: HookEntry[] = [];
  for (const eventProp of hooks.children ?? []) {
    const [keyNode, groups] = eventProp.children ?? [];
    const event = keyNode?.value;
    if (typeof event !== "string" || groups?.type !== "array") continue;
    for (const group of groups.children ?? []) {
      if (group.type !== "object") continue;
      const matcherNode = property(group, "matcher");
      const matcher = typeof matcherNode?.value === "string" ? matcherNode.value : undefined;
      const handlers = property(group, "hooks");
      if (handlers?.type !== "array") continue;
      for (const handler of handlers.children ?? []) {
        if (handler.type !== "object") continue;
        out.push(entry(handler, { file, event, matcher, starts, root }));
      }
    }
  }
  return out;
}

function entry(
  handler: Node,
  ctx: { file: LintFile; event: string; matcher: string | undefined; starts: number[]; root: string },
): HookEntry {
  const text = (name: string) => {
    const value = property(handler, name)?.value;
    return typeof value === "string" ? value : undefined;
  };
  const command = text("command");
  const url = text("url");
  const anchor = property(handler, "command") ?? property(handler, "url") ?? handler;
  const { scripts, external } = command ? hookScripts(command, ctx.root) : { scripts: [], external: [] };
  return {
    file: ctx.file,
    event: ctx.event,
    matcher: ctx.matcher,
    type: text("type") ?? "",
    command,
    url,
    ...positionAt(ctx.starts, anchor.offset),
    scripts,
    externalScripts: external,
  };
}

/** The value node of an object's property, or undefined. */
function property(node: Node, name: string): Node | undefined {
  if (node.type !== "object") return undefined;
  for (const prop of node.children ?? []) {
    const [key, value] = prop.children ?? [];
    if (key?.value === name) return value;
  }
  return undefined;
}
