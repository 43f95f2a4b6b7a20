/**
 * Line scanning shared by the delegation, hooks and git rules. These rules look for shell or JSON patterns,
 * and in a Markdown file those only mean something inside a fenced code block: the same words in prose are
 * usually an explanation ("the original wrote state with jq > state.json"). So every line carries whether
 * it is code, and which fence it belongs to.
 */
import { markdownLines } from "../../../shared/markdown-lines.js";
import type { FileKind, Finding, LintFile, LintModel } from "../../rule-types.js";

export interface TextLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
  /** Inside a fenced code block of a Markdown file, or any line of a script file. */
  code: boolean;
  /** Fence info word (`bash`, `json`, "" when none); for script files, the extension. */
  lang: string;
  /** Index of the fenced block (or 0 for a whole script file); -1 for prose. */
  block: number;
  /** The fence lines themselves are neither prose nor code. */
  fence: boolean;
}

const SCRIPT = /\.(sh|bash|zsh|py|js|mjs|cjs|ts|mts|rb|pl)$/;

export function isScriptFile(path: string): boolean {
  return SCRIPT.test(path);
}

/** The file's lines after any frontmatter, each tagged code/prose. */
export function textLines(file: LintFile): TextLine[] {
  const out: TextLine[] = [];
  if (isScriptFile(file.path)) {
    const lang = file.path.slice(file.path.lastIndexOf(".") + 1);
    file.lines.forEach((text, i) => {
      out.push({ line: i + 1, text, code: true, lang, block: 0, fence: false });
    });
    return out;
  }
  // Read as CommonMark: a fence indented four spaces, or a ```` ``` ```` code span, opens nothing; a fence in a
  // list item ends with the item; an indented block is code too.
  const first = Math.max(0, file.bodyStartLine - 1);
  const read = markdownLines(file.lines.slice(first).join("\n"));
  const blockOf = new Map<number, { block: number; lang: string; fence: boolean }>();
  read.codeBlocks.forEach((b, block) => {
    for (let k = b.from; k < b.to; k++) {
      const fence = b.fence !== "" && (k === b.from || (b.closed && k === b.to - 1));
      blockOf.set(k, { block, lang: b.lang, fence });
    }
  });
  for (let i = first; i < file.lines.length; i++) {
    const text = file.lines[i] ?? "";
    const inBlock = blockOf.get(i - first);
    out.push(
      inBlock
        ? {
            line: i + 1,
            text,
            code: !inBlock.fence,
            lang: inBlock.lang,
            block: inBlock.block,
            fence: inBlock.fence,
          }
        : { line: i + 1, text, code: false, lang: "", block: -1, fence: false },
    );
  }
  return out;
}

/** A shell or Python comment line (`# …`), or a JavaScript one (`// …`). */
export function isComment(text: string): boolean {
  return /^\s*(#|\/\/)/.test(text);
}

/** The line without a trailing shell comment, so `cmd  # writes state.json` is judged on `cmd` alone. */
export function stripShellComment(text: string): string {
  // Only a `#` preceded by whitespace starts a comment; `${#arr[@]}` and `$#` do not.
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"') i++;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === "#" && (i === 0 || /\s/.test(text[i - 1] ?? ""))) return text.slice(0, i);
  }
  return text;
}

/**
 * Whether a line forbids rather than instructs ("Do NOT use status completed", "never write state.json
 * directly"): the original's docs are full of such warnings, and flagging them would punish the fix.
 */
export function isNegated(text: string): boolean {
  return /\b(not|never|don't|do not|must not|mustn't|cannot|avoid|instead of|forbidden|prohibited|no longer)\b|\bNOT\b|❌|\bDON'T\b|\bWRONG\b|\bBAD\b|\bAnti-pattern\b/i.test(
    text,
  );
}

/** Markdown heading text of a line, or null. */
export function heading(text: string): string | null {
  const match = /^\s{0,3}#{1,6}\s+(.*)$/.exec(text);
  return match ? (match[1] ?? "") : null;
}

/** 1-based column of a regex match in a line (1 when the regex does not match). */
export function columnOf(text: string, pattern: RegExp): number {
  const match = pattern.exec(text);
  return match ? match.index + 1 : 1;
}

/** A rule's `check` that runs `checkFile` on every file of the given kinds. */
export function eachFileOf(
  kinds: ReadonlySet<FileKind>,
  checkFile: (file: LintFile) => Finding[],
): (model: LintModel) => Finding[] {
  return (model) => model.files.filter((file) => kinds.has(file.kind)).flatMap(checkFile);
}
