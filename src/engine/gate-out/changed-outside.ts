import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { batonKeyDir } from "../../shared/baton-paths.js";

/**
 * What a run changed outside the repository that decides how the checks' programs start: the user's
 * configuration (the files at the top of HOME, `$XDG_CONFIG_HOME`, the user's own libraries under
 * `~/.local/lib` — Python's user site with its `usercustomize.py` and `.pth` files) and every folder on PATH
 * (a `node` or `python3` put ahead of the real one). An agent that writes `~/.npmrc` `node-options`, runs
 * `go env -w GOFLAGS=…` or drops a `usercustomize.py` changes how the checks run without touching the
 * repository; the checks do not see what changed during the run (each such file reads empty to them), so
 * they start as they would have before it. Known by the kernel's change time, which no program can set back.
 */
// The kernel's change times tick more coarsely than Date.now(): a file written just after the baseline counts.
const MARGIN_MS = 50;
// A configuration folder this large is not walked further: the walk costs what it finds.
const MAX_ENTRIES = 20_000;

/**
 * The files under `dir` whose change time is after `since` (ms since the epoch), looking into the folders
 * `descend` names and at most `maxEntries` entries. A link made during the run stands for what it leads to.
 */
export function changedFilesIn(
  dir: string,
  since: number,
  descend: (name: string) => boolean,
  maxEntries = MAX_ENTRIES,
): string[] {
  const found: string[] = [];
  const after = since - MARGIN_MS;
  let left = maxEntries;
  const walk = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (--left < 0) return;
      const path = join(folder, name);
      let stat: ReturnType<typeof lstatSync>;
      try {
        stat = lstatSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (descend(name)) walk(path);
      } else if (stat.ctimeMs > after) {
        const file = stat.isSymbolicLink() ? changedTarget(path, after) : stat.isFile() ? path : null;
        if (file) found.push(file);
      }
    }
  };
  walk(dir);
  return found;
}

/**
 * A link made during the run stands for what it leads to: that file, when it changed during the run too (a
 * link to a program installed long before starts nothing new). A mount cannot cover a link itself.
 */
function changedTarget(link: string, since: number): string | null {
  try {
    const target = realpathSync(link);
    const stat = statSync(target);
    return stat.isFile() && stat.ctimeMs > since ? target : null;
  } catch {
    return null;
  }
}

/** The folders whose files decide how a check's programs start, and whether to look inside their folders. */
function places(env: NodeJS.ProcessEnv): Array<{ dir: string; deep: boolean }> {
  const home = env["HOME"] || homedir();
  const config = env["XDG_CONFIG_HOME"] || join(home, ".config");
  const path = (env["PATH"] ?? "").split(delimiter).filter((dir) => isAbsolute(dir));
  return [
    { dir: home, deep: false },
    { dir: config, deep: true },
    { dir: join(home, ".local", "lib"), deep: true },
    ...path.map((dir) => ({ dir, deep: false })),
  ];
}

/** Files of those places changed since `since` (ms since the epoch), the signing key's folder left out. */
export function changedOutside(since: number, env: NodeJS.ProcessEnv = process.env): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const { dir, deep } of places(env)) {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      continue;
    }
    if (seen.has(`${real}\0${deep}`)) continue;
    seen.add(`${real}\0${deep}`);
    found.push(...changedFilesIn(real, since, () => deep));
  }
  const keys = batonKeyDir();
  return [...new Set(found)].filter((path) => !path.startsWith(`${keys}/`)).sort();
}
