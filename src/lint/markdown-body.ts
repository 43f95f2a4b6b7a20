import type { LintFile } from "./rule-types.js";

/** One line of a Markdown body, with what rules need to skip examples. */
export interface BodyLine {
  text: string;
  /** 1-based line in the file. */
  line: number;
  /** Inside a ``` or ~~~ fence (the fence lines themselves count as inside). */
  inFence: boolean;
  /** For fenced lines: the last non-blank line before the fence, which says what the block is ("**Wrong**:"). */
  fenceCaption?: string;
}

// Several rules walk the same bodies; a model's files never change, so each is split once.
const cache = new WeakMap<LintFile, BodyLine[]>();

/** The body lines (after the frontmatter) of a Markdown file. Shared between callers: do not mutate. */
export function bodyLines(file: LintFile): BodyLine[] {
  const cached = cache.get(file);
  if (cached) return cached;
  const out: BodyLine[] = [];
  cache.set(file, out);
  let fence: string | null = null;
  let lastText = "";
  let caption = "";
  for (let index = file.bodyStartLine - 1; index < file.lines.length; index++) {
    const text = file.lines[index] ?? "";
    const marker =
      text.includes("```") || text.includes("~~~") ? /^\s*(`{3,}|~{3,})/.exec(text)?.[1] : undefined;
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      if (fence === null) caption = lastText;
      out.push({ text, line: index + 1, inFence: true, fenceCaption: caption });
      fence = fence === null ? marker : null;
      continue;
    }
    out.push(
      fence === null
        ? { text, line: index + 1, inFence: false }
        : { text, line: index + 1, inFence: true, fenceCaption: caption },
    );
    if (fence === null && text.trim() !== "") lastText = text;
  }
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
