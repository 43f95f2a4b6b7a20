import { basename } from "node:path";
import type { Project } from "./project.js";
import { absolutePath, classifyPath, type ProtectedFile } from "./protected-paths.js";

/**
 * Best-effort detection of shell commands that write Baton's files. It lexes the command the way a
 * shell splits it (quotes, operators, redirections, heredoc bodies skipped) so that reads such as
 * `cat specs/state.json` or `jq . specs/state.json > /tmp/x` are never taken for writes. A write it
 * misses is caught after the fact by the post-tool-use validation.
 */
export interface BashWrite {
  file: ProtectedFile;
  action: string;
}

/** Cheap pre-filter: a command that names none of these cannot touch a protected file. */
const MENTIONS = /state\.json|TODO\.md|errors\.json|\.postflight-|\.baton\b/;

type Token = { word: string } | { redirect: string; target: string };

interface Lexed {
  segments: Token[][];
}

const OUTPUT_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>"]);

/** Splits a command into simple commands (by `;`, `&&`, `||`, `|`, `&`, newlines, parentheses). */
export function lex(command: string): Lexed {
  const segments: Token[][] = [];
  let tokens: Token[] = [];
  let word = "";
  let inWord = false;
  let pendingRedirect: string | null = null;
  const heredocs: string[] = [];
  const endWord = () => {
    if (!inWord) return;
    if (pendingRedirect !== null) {
      tokens.push({ redirect: pendingRedirect, target: word });
      pendingRedirect = null;
    } else tokens.push({ word });
    word = "";
    inWord = false;
  };
  const endSegment = () => {
    endWord();
    pendingRedirect = null;
    if (tokens.length > 0) segments.push(tokens);
    tokens = [];
  };
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (c === "\n") {
      endSegment();
      i++;
      // A heredoc body is data, not commands: skip it up to its delimiter line.
      for (const delimiter of heredocs.splice(0)) {
        while (i < command.length) {
          const end = command.indexOf("\n", i);
          const line = command.slice(i, end === -1 ? command.length : end);
          i = end === -1 ? command.length : end + 1;
          if (line.trim() === delimiter) break;
        }
      }
    } else if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word += command.slice(i + 1, end === -1 ? command.length : end);
      inWord = true;
      i = end === -1 ? command.length : end + 1;
    } else if (c === '"') {
      i++;
      while (i < command.length && command[i] !== '"') {
        if (command[i] === "\\" && i + 1 < command.length) i++;
        word += command[i];
        i++;
      }
      inWord = true;
      i++;
    } else if (c === "\\") {
      word += command[i + 1] ?? "";
      inWord = true;
      i += 2;
    } else if (c === "#" && !inWord) {
      while (i < command.length && command[i] !== "\n") i++;
    } else if (c === ">" || (c === "&" && command[i + 1] === ">")) {
      // `2>` and `2>>`: a word of digits right before the operator is a file descriptor.
      if (inWord && /^\d+$/.test(word)) {
        word = "";
        inWord = false;
      }
      endWord();
      const op = /^(?:&>>|&>|>>|>\||>&|>)/.exec(command.slice(i))![0];
      i += op.length;
      pendingRedirect = op;
    } else if (c === "<") {
      endWord();
      const op = /^(?:<<<|<<-|<<|<)/.exec(command.slice(i))![0];
      i += op.length;
      if (op === "<<" || op === "<<-") {
        const match = /^\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/.exec(command.slice(i));
        if (match) {
          heredocs.push(match[2]!);
          i += match[0].length;
        }
      } else pendingRedirect = "<";
    } else if (c === ";" || c === "|" || c === "&" || c === "(" || c === ")" || c === "`") {
      endSegment();
      i += command[i + 1] === c && (c === "|" || c === "&") ? 2 : 1;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  endSegment();
  return { segments };
}

/** Leading words that only wrap the real command. */
const WRAPPERS = new Set(["sudo", "env", "command", "nohup", "time", "exec", "nice", "builtin"]);
const ANY_ARG = new Set(["tee", "sponge", "rm", "unlink", "touch", "truncate", "shred", "mv"]);
const LAST_ARG = new Set(["cp", "install", "ln", "rsync"]);
const IN_PLACE = new Set(["sed", "perl", "yq", "gsed"]);
const INTERPRETERS = /^(?:python[0-9.]*|node|nodejs|ruby|perl|php|deno|bun)$/;

/** Code passed to an interpreter that writes, renames or deletes a file. */
const WRITE_CALL =
  /\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|renameSync|unlinkSync|rmSync|copyFileSync|cpSync|write_text|write_bytes)\s*\(|\.write\s*\(|\b(?:os\.(?:remove|unlink|rename|replace)|shutil\.\w+|json\.dump)\s*\(|\bopen\s*\([^)]*['"](?:[wax]\+?b?|\+?>{1,2})['"]/;
const PATH_IN_CODE =
  /[\w./${}~-]*(?:state\.json|TODO\.md|errors\.json|\.postflight-[a-z-]+|\.baton\/[\w./-]*)/g;

function argsOf(words: string[]): string[] {
  return words.slice(1).filter((w) => !w.startsWith("-"));
}

function inPlaceFlag(words: string[]): boolean {
  return words
    .slice(1)
    .some((w) => w === "--in-place" || w.startsWith("--in-place=") || /^-[a-zA-Z]*i/.test(w));
}

export function findBashWrite(command: string, cwd: string, project: Project): BashWrite | null {
  if (!MENTIONS.test(command)) return null;
  let dir = cwd;
  const check = (written: string, action: string): BashWrite | null => {
    const file = classifyPath(absolutePath(written, dir, project), project);
    return file ? { file, action } : null;
  };
  let interpreter = false;
  for (const tokens of lex(command).segments) {
    for (const t of tokens) {
      if ("redirect" in t && OUTPUT_REDIRECTS.has(t.redirect)) {
        const hit = check(t.target, `redirecting output (${t.redirect}) into`);
        if (hit) return hit;
      }
    }
    let words = tokens.flatMap((t) => ("word" in t ? [t.word] : []));
    while (words.length > 0 && (WRAPPERS.has(words[0]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!))) {
      words = words.slice(1);
    }
    if (words.length === 0) continue;
    const name = basename(words[0]!);
    if (name === "cd") {
      const target = words[1];
      dir = target === undefined ? project.root : absolutePath(target, dir, project);
      continue;
    }
    if (INTERPRETERS.test(name)) interpreter = true;
    let targets: string[] = [];
    if (ANY_ARG.has(name)) targets = argsOf(words);
    else if (LAST_ARG.has(name)) targets = argsOf(words).slice(-1);
    else if (IN_PLACE.has(name) && inPlaceFlag(words)) targets = argsOf(words);
    else if (name === "dd") targets = words.filter((w) => w.startsWith("of=")).map((w) => w.slice(3));
    else if (name === "git" && (words[1] === "checkout" || words[1] === "restore" || words[1] === "rm")) {
      targets = argsOf(words.slice(1));
    }
    for (const target of targets) {
      const hit = check(target, `\`${name}\` on`);
      if (hit) return hit;
    }
  }
  if (interpreter && WRITE_CALL.test(command)) {
    dir = cwd;
    for (const match of command.matchAll(PATH_IN_CODE)) {
      const hit = check(match[0], "writing from a script to");
      if (hit) return hit;
    }
  }
  return null;
}
