import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, relative, sep } from "node:path";
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

/**
 * Where `bin` runs Baton from, when that is inside the repository (a devDependency's `node_modules/.bin/baton`,
 * a checkout's `bin/baton.js`): there the agents' commands can rewrite Baton itself, and the next hook would run
 * their code. Null when Baton runs from outside the repository.
 */
export function binInsideRepository(
  root: string,
  bin: string,
  pathVariable = process.env["PATH"],
): string | null {
  const realRoot = realpathOr(root);
  const words = bin.split(/\s+/).filter((w) => w !== "");
  const candidates = words.flatMap((word) => {
    const bare = word.replace(/^'|'$/g, "");
    if (bare.includes("/")) return [isAbsolute(bare) ? bare : join(root, bare)];
    const dir = (pathVariable ?? "").split(delimiter).find((d) => d !== "" && isExecutable(join(d, bare)));
    return dir === undefined ? [] : [join(dir, bare)];
  });
  for (const candidate of candidates) {
    const real = realpathOr(candidate);
    const rel = relative(realRoot, real);
    if (present(real) && rel !== "" && !rel.startsWith("..") && !isAbsolute(rel))
      return rel.split(sep).join("/");
  }
  return null;
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
