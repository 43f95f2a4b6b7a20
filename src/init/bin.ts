import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { binScript } from "../shared/package.js";
import { present } from "../shared/present.js";

/** Characters that need no quoting in a POSIX shell word. */
const SHELL_SAFE = /^[A-Za-z0-9_./@%+=:,-]+$/;

/** One word for `sh`: unchanged when safe, else single-quoted (a `'` inside becomes `'\''`). */
export function shellQuote(word: string): string {
  if (word.length > 0 && SHELL_SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function onPath(name: string, pathVariable: string | undefined = process.env["PATH"]): boolean {
  return (pathVariable ?? "").split(delimiter).some((dir) => dir !== "" && isExecutable(join(dir, name)));
}

/**
 * How Claude Code's shell calls Baton. A bare `baton` only when the shell will find it; otherwise the
 * absolute `node …/bin/baton.js`, because slash commands and hooks run without this shell's aliases.
 * A `--bin` naming an existing file is a path (quoted if it needs it); anything else is a command line
 * used verbatim, so `--bin "npx baton"` works.
 */
export function resolveBin(override: string | undefined, pathVariable?: string): string {
  if (override !== undefined) {
    const trimmed = override.trim();
    return present(trimmed) && statSync(trimmed).isFile() ? shellQuote(trimmed) : trimmed;
  }
  if (onPath("baton", pathVariable)) return "baton";
  return `node ${shellQuote(binScript())}`;
}
