import { isAbsolute, relative } from "node:path";
import { isInsideRoot, normalizePath } from "./repo-paths.js";

/**
 * Finds the script files a hook command runs. Hooks run with cwd = the project folder, so a relative path
 * is relative to the linted root, and `$CLAUDE_PROJECT_DIR` (quoted, braced or bare) is the root itself.
 *
 * Decision: `~/…`, `$HOME/…` and absolute paths outside the root are not the repository's to check; they
 * are returned in `external` exactly as written (with `$HOME` spelled `~`), never in `scripts`, so a
 * "script missing" rule can check every entry of `scripts` without special cases.
 */
export interface HookScripts {
  /** Relative to the root, normalised. */
  scripts: string[];
  /** Paths outside the repository, as written. */
  external: string[];
}

import { INTERPRETERS } from "./interpreters.js";

const ROOT = "\u0000ROOT\u0000";
const SCRIPT_EXTENSION = /\.(sh|bash|zsh|js|mjs|cjs|ts|mts|py|rb|pl|lua)$/;
const PATH_TOKEN = /^[\w./~@+\u0000-]+$/;
// Words after which the next word is the script being run: an interpreter's, or `exec`'s (which needs the bit).
const RUNNERS = new Set([...INTERPRETERS, "exec"]);

export function hookScripts(command: string, root: string): HookScripts {
  const text = command
    .replace(/["']?\$\{?CLAUDE_PROJECT_DIR\}?["']?/g, ROOT)
    .replace(/["']?\$\{?HOME\}?["']?/g, "~");
  const scripts = new Set<string>();
  const external = new Set<string>();
  for (const { word, commandPosition } of words(text)) {
    if (!PATH_TOKEN.test(word) || word.startsWith("-")) continue;
    const looksLikeScript =
      SCRIPT_EXTENSION.test(word) ||
      word.startsWith(`${ROOT}/`) ||
      // A path in command position is run: `./x`, `~/x`, `/x`, or inside a hidden folder (`.claude/hooks/x`).
      (commandPosition && /^(\.\/|\.[\w-]+\/|~\/|\/)/.test(word));
    if (!looksLikeScript) continue;
    if (word.startsWith("~/")) {
      external.add(word);
      continue;
    }
    const unrooted = word.startsWith(ROOT) ? word.slice(ROOT.length + 1) : word;
    if (isAbsolute(unrooted)) {
      const inside = normalizePath(relative(root, unrooted));
      if (isInsideRoot(inside) && inside !== "") scripts.add(inside);
      else external.add(unrooted);
      continue;
    }
    const path = normalizePath(unrooted);
    if (isInsideRoot(path) && path !== "") scripts.add(path);
    else external.add(word);
  }
  return { scripts: [...scripts], external: [...external] };
}

interface Word {
  word: string;
  /** First word of a simple command, or the argument of a runner like `bash`. */
  commandPosition: boolean;
}

/**
 * A shell-ish word splitter: quotes are treated as separators (so `bash -c '…bash x.sh…'` yields the inner
 * words too), operators start a new command, and a redirect's target is skipped (`2>/dev/null`).
 */
function words(text: string): Word[] {
  const out: Word[] = [];
  let current = "";
  let commandStart = true;
  let afterRunner = false;
  let redirect = false;
  const flush = () => {
    if (current === "") return;
    const word = current;
    current = "";
    if (redirect) {
      redirect = false;
      return;
    }
    if (/^\d*$/.test(word)) return;
    out.push({ word, commandPosition: commandStart || afterRunner });
    const base = word.split("/").pop() ?? word;
    afterRunner = RUNNERS.has(base) || (afterRunner && word.startsWith("-") && word !== "-c");
    // `bash -c '…'`: the quoted string is a new command line.
    if (word === "-c") afterRunner = false;
    commandStart = word === "-c";
  };
  for (const char of text) {
    if (/\s/.test(char)) flush();
    else if (char === '"' || char === "'") {
      const wasStart = current === "" && commandStart;
      flush();
      if (wasStart) commandStart = true;
    } else if (";|&()`".includes(char)) {
      flush();
      commandStart = true;
      afterRunner = false;
    } else if (char === "<" || char === ">") {
      // `2>` leaves a bare fd number in `current`; drop it, the redirect target follows.
      if (/^\d*$/.test(current)) current = "";
      flush();
      redirect = true;
    } else {
      if (char === "$" || char === "{" || char === "}") {
        // Expansions other than the ones substituted above cannot be resolved statically.
        current += "\u0001";
        continue;
      }
      current += char;
    }
  }
  flush();
  return out;
}
