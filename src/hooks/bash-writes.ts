import { basename } from "node:path";
import { BATON_DIR_SOURCE, MARKER_NAME_SOURCE } from "../shared/baton-paths.js";
import type { Project } from "./project.js";
import { absolutePath, classifyPath, type ProtectedFile } from "./protected-paths.js";
import { lex, OUTPUT_REDIRECTS } from "./shell-lexer.js";

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
const MENTIONS = new RegExp(
  `state\\.json|TODO\\.md|errors\\.json|${MARKER_NAME_SOURCE}|${BATON_DIR_SOURCE}\\b`,
);

const WRAPPERS = new Set(["sudo", "env", "command", "nohup", "time", "exec", "nice", "builtin"]);
const ANY_ARG = new Set(["tee", "sponge", "rm", "unlink", "touch", "truncate", "shred", "mv"]);
const LAST_ARG = new Set(["cp", "install", "ln", "rsync"]);
const IN_PLACE = new Set(["sed", "perl", "yq", "gsed"]);
const INTERPRETERS = /^(?:python[0-9.]*|node|nodejs|ruby|perl|php|deno|bun)$/;

/** Code passed to an interpreter that writes, renames or deletes a file (`open(…, "w")` is found apart). */
const WRITE_CALL =
  /\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|renameSync|unlinkSync|rmSync|copyFileSync|cpSync|write_text|write_bytes)\s*\(|\.write\s*\(|\b(?:os\.(?:remove|unlink|rename|replace)|shutil\.\w+|json\.dump)\s*\(/;
/** `open(`, a closing parenthesis, or a write mode literal: one pass tells whether a write mode is inside an open call. */
const OPEN_PARTS = /\bopen\s*\(|\)|['"](?:[wax]\+?b?|\+?>{1,2})['"]/g;
/** The file names a protected path ends with; the path around each is read by walking back. */
const PATH_ANCHOR = new RegExp(
  `state\\.json|TODO\\.md|errors\\.json|${MARKER_NAME_SOURCE}|${BATON_DIR_SOURCE}\\/[\\w./-]*`,
  "g",
);
const PATH_CHAR = /[\w./${}~-]/;

function opensForWriting(code: string): boolean {
  let open = false;
  for (const match of code.matchAll(OPEN_PARTS)) {
    if (match[0] === ")") open = false;
    else if (match[0].startsWith("open")) open = true;
    else if (open) return true;
  }
  return false;
}

/** Paths that end in a protected name, each with the path characters before it (linear in the code). */
function* pathsInCode(code: string): Generator<string> {
  let floor = 0;
  for (const match of code.matchAll(PATH_ANCHOR)) {
    let start = match.index;
    while (start > floor && PATH_CHAR.test(code[start - 1]!)) start--;
    floor = match.index + match[0].length;
    yield code.slice(start, floor);
  }
}

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
  // Only a path naming a protected file can be one; each distinct path is resolved once per folder.
  const seen = new Set<string>();
  const check = (written: string, action: string): BashWrite | null => {
    if (!MENTIONS.test(written)) return null;
    const key = `${dir}\0${written}`;
    if (seen.has(key)) return null;
    seen.add(key);
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
  if (interpreter && (WRITE_CALL.test(command) || opensForWriting(command))) {
    dir = cwd;
    for (const path of pathsInCode(command)) {
      const hit = check(path, "writing from a script to");
      if (hit) return hit;
    }
  }
  return null;
}
