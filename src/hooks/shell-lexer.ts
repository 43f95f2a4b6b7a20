/** A small shell lexer: simple commands, words and redirections, enough to see what a command writes. */

export type Token = { word: string } | { redirect: string; target: string };

export interface Lexed {
  segments: Token[][];
}

export const OUTPUT_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>"]);

// Sticky scanners: each matches at one position, so lexing never copies or rescans the rest of the
// command (a 1 MB command is lexed in one pass).
/** Characters that end a plain run of a word: blanks, quotes, escapes, comments, operators. */
const SPECIAL = new Uint8Array(128);
for (const c of " \t\n'\"\\#><;|&()`") SPECIAL[c.charCodeAt(0)] = 1;

/** Where the run of ordinary word characters starting at `from` ends. */
function plainRunEnd(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128 && SPECIAL[code] === 1) break;
  }
  return i;
}
const OUTPUT_OP = /&>>|&>|>>|>\||>&|>/y;
const INPUT_OP = /<<<|<<-|<<|</y;
const HEREDOC_WORD = /\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/y;
const QUOTED_END = /["\\]/g;

function sticky(re: RegExp, text: string, at: number): string | null {
  re.lastIndex = at;
  return re.exec(text)?.[0] ?? null;
}

/** Splits a command into simple commands (by `;`, `&&`, `||`, `|`, `&`, newlines, parentheses). */
export function lex(command: string): Lexed {
  return new Lexer(command).run();
}

/** One pass over a command: each step reads one token's worth and says where the next begins. */
class Lexer {
  private readonly segments: Token[][] = [];
  private tokens: Token[] = [];
  private word = "";
  private inWord = false;
  private pendingRedirect: string | null = null;
  private readonly heredocs: string[] = [];

  constructor(private readonly command: string) {}

  run(): Lexed {
    let i = 0;
    while (i < this.command.length) i = this.step(i);
    this.endSegment();
    return { segments: this.segments };
  }

  private step(i: number): number {
    const { command } = this;
    const c = command[i]!;
    if (c === "\n") {
      this.endSegment();
      return skipHeredocBodies(command, i + 1, this.heredocs.splice(0));
    }
    if (c === " " || c === "\t") {
      this.endWord();
      return i + 1;
    }
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      this.append(command.slice(i + 1, end === -1 ? command.length : end));
      return end === -1 ? command.length : end + 1;
    }
    if (c === '"') {
      const read = readDoubleQuoted(command, i + 1);
      this.append(read.text);
      return read.end;
    }
    if (c === "\\") {
      this.append(command[i + 1] ?? "");
      return i + 2;
    }
    if (c === "#") return this.comment(i);
    if (c === ">" || (c === "&" && command[i + 1] === ">")) return this.output(i);
    if (c === "<") return this.input(i);
    if (c === ";" || c === "|" || c === "&" || c === "(" || c === ")" || c === "`") {
      this.endSegment();
      return i + (command[i + 1] === c && (c === "|" || c === "&") ? 2 : 1);
    }
    const end = plainRunEnd(command, i);
    this.append(command.slice(i, end));
    return end;
  }

  private append(text: string): void {
    this.word += text;
    this.inWord = true;
  }

  /** `#` starts a comment only at the start of a word. */
  private comment(i: number): number {
    if (this.inWord) {
      this.append("#");
      return i + 1;
    }
    const end = this.command.indexOf("\n", i);
    return end === -1 ? this.command.length : end;
  }

  private output(i: number): number {
    // `2>` and `2>>`: a word of digits right before the operator is a file descriptor.
    if (this.inWord && /^\d+$/.test(this.word)) {
      this.word = "";
      this.inWord = false;
    }
    this.endWord();
    const op = sticky(OUTPUT_OP, this.command, i)!;
    this.pendingRedirect = op;
    return i + op.length;
  }

  private input(i: number): number {
    this.endWord();
    const op = sticky(INPUT_OP, this.command, i)!;
    let at = i + op.length;
    if (op === "<<" || op === "<<-") {
      HEREDOC_WORD.lastIndex = at;
      const match = HEREDOC_WORD.exec(this.command);
      if (match) {
        this.heredocs.push(match[2]!);
        at += match[0].length;
      }
    } else this.pendingRedirect = "<";
    return at;
  }

  private endWord(): void {
    if (!this.inWord) return;
    if (this.pendingRedirect !== null) {
      this.tokens.push({ redirect: this.pendingRedirect, target: this.word });
      this.pendingRedirect = null;
    } else this.tokens.push({ word: this.word });
    this.word = "";
    this.inWord = false;
  }

  private endSegment(): void {
    this.endWord();
    this.pendingRedirect = null;
    if (this.tokens.length > 0) this.segments.push(this.tokens);
    this.tokens = [];
  }
}

/** A heredoc body is data, not commands: skips it up to its delimiter line. */
function skipHeredocBodies(command: string, from: number, delimiters: string[]): number {
  let i = from;
  for (const delimiter of delimiters) {
    while (i < command.length) {
      const end = command.indexOf("\n", i);
      const line = command.slice(i, end === -1 ? command.length : end);
      i = end === -1 ? command.length : end + 1;
      if (line.trim() === delimiter) break;
    }
  }
  return i;
}

/** The text of a double-quoted string from after its opening quote, backslash escapes removed. */
function readDoubleQuoted(command: string, from: number): { text: string; end: number } {
  let text = "";
  let i = from;
  for (;;) {
    QUOTED_END.lastIndex = i;
    const found = QUOTED_END.exec(command);
    if (!found) return { text: text + command.slice(i), end: command.length + 1 };
    text += command.slice(i, found.index);
    if (found[0] === '"') return { text, end: found.index + 1 };
    text += command[found.index + 1] ?? "";
    i = found.index + 2;
  }
}

/** Leading words that only wrap the real command. */
