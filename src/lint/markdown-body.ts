import { markdownLines } from "../shared/markdown-lines.js";
import type { LintFile } from "./rule-types.js";

/** One line of a Markdown body, with what rules need to skip examples. */
export interface BodyLine {
  text: string;
  /** 1-based line in the file. */
  line: number;
  /** Inside a code block, fenced or indented (the fence lines themselves count as inside). */
  inFence: boolean;
  /** For fenced lines: the last non-blank line before the fence, which says what the block is ("**Wrong**:"). */
  fenceCaption?: string;
}

// Several rules walk the same bodies; a model's files never change, so each is split once.
const cache = new WeakMap<LintFile, BodyLine[]>();

/**
 * The body lines (after the frontmatter) of a Markdown file, code told apart as CommonMark reads it (a
 * fence indented four spaces, or holding a ```` ``` ```` code span, is not one). Shared between callers:
 * do not mutate.
 */
export function bodyLines(file: LintFile): BodyLine[] {
  const cached = cache.get(file);
  if (cached) return cached;
  const out: BodyLine[] = [];
  cache.set(file, out);
  const first = file.bodyStartLine - 1;
  const body = file.lines.slice(first);
  const roles = markdownLines(body.join("\n")).roles;
  let lastText = "";
  let caption = "";
  body.forEach((text, k) => {
    const line = first + k + 1;
    if (roles[k] !== "code") {
      out.push({ text, line, inFence: false });
      if (text.trim() !== "") lastText = text;
      return;
    }
    if (roles[k - 1] !== "code") caption = lastText;
    out.push({ text, line, inFence: true, fenceCaption: caption });
  });
  return out;
}

/**
 * Lines that tell the model what NOT to do ("**DO NOT** use `Skill(x)` - this will FAIL") name things on
 * purpose; a reference rule that flagged them would be reporting the documentation of the very mistake.
 */
export function isNegativeExample(text: string): boolean {
  return /\b(do not|don't|never|must not|should not|avoid|wrong|incorrect|instead of|not use|bad|anti-pattern)\b|❌|✗/i.test(
    text,
  );
}

/** A line that names things as a counter-example: itself, or the fenced block it sits in, says so. */
export function isNegativeLine(line: BodyLine): boolean {
  return (
    isNegativeExample(line.text) || (line.fenceCaption !== undefined && isNegativeExample(line.fenceCaption))
  );
}
