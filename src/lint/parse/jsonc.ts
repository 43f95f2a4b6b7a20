import { getNodeValue, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import type { LintFile } from "../rule-types.js";

/** opencode.json(c) as opencode reads it: JSON with comments and trailing commas. */
export function parseJsonc(file: LintFile): NonNullable<LintFile["json"]> {
  const parseErrors: ParseError[] = [];
  const tree = parseTree(file.text, parseErrors, { disallowComments: false, allowTrailingComma: true });
  const errors = parseErrors.map((error) => {
    const before = file.text.slice(0, error.offset).split("\n");
    return {
      message: `invalid JSON: ${printParseErrorCode(error.error)}`,
      line: before.length,
      column: (before.at(-1)?.length ?? 0) + 1,
    };
  });
  return { data: tree ? getNodeValue(tree) : null, errors };
}

/** The 1-based line of a top-level key in the text (for findings), or 1. */
export function keyLine(text: string, key: string): number {
  const index = text.search(new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"\\s*:`));
  return index < 0 ? 1 : text.slice(0, index).split("\n").length;
}
