import { lstatSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { changedTarget } from "./changed-outside.js";
import { dependencyFolders } from "./scratch-tree.js";

/**
 * The installed dependencies the verdict tree links in (an ignored `node_modules`, a virtualenv, a `vendor`)
 * may change during a run only with what they are installed from: a file changed there while no manifest or
 * lock file of that ecosystem changed (a patched library, a `node_modules/.bin/node`, a `.pth` in `.venv`) reads
 * empty to the checks, as what the run changed in the user's configuration does. Tool caches kept inside
 * them (`.cache`, `.vite`, `__pycache__`) are written by honest test runs and are left as they are.
 */
const MARGIN_MS = 50;
const MAX_ENTRIES = 400_000;
// Beyond this many, the list stops: the checks' sandbox takes one mount per file.
const MAX_FILES = 2_000;
const CACHES = new Set([".cache", ".vite", "__pycache__"]);

/**
 * What a dependency folder is installed from: its lock files, and where a project keeps none, its manifests.
 * A change to one makes the folder's changes declared work; a manifest's change where a lock file pins what is
 * installed declares nothing (an edited description is not an install).
 */
const INSTALLED_FROM: Record<string, { locks: RegExp; manifests: RegExp }> = {
  node: {
    locks: /^(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?)$/,
    manifests: /^package\.json$/,
  },
  python: {
    locks: /^(requirements[^/]*\.txt|uv\.lock|poetry\.lock|Pipfile\.lock|pdm\.lock)$/,
    manifests: /^(pyproject\.toml|Pipfile|setup\.(py|cfg))$/,
  },
  vendor: { locks: /^(composer\.lock|Gemfile\.lock)$/, manifests: /^(composer\.json|Gemfile)$/ },
};

function ecosystemOf(folder: string): keyof typeof INSTALLED_FROM {
  const name = basename(folder);
  return name === "node_modules" ? "node" : name === "vendor" ? "vendor" : "python";
}

/** Whether the run changed what `folder` is installed from (`changed`: repository-relative paths). */
function installSourceChanged(root: string, folder: string, changed: readonly string[]): boolean {
  const { locks, manifests } = INSTALLED_FROM[ecosystemOf(folder)]!;
  if (changed.some((path) => locks.test(basename(path)))) return true;
  const locked = readdirSafe(root).some((name) => locks.test(name));
  return !locked && changed.some((path) => manifests.test(basename(path)));
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Files of `folder` (absolute) changed since `since`, tool caches left out; a link made then stands for its target. */
function changedIn(folder: string, since: number): string[] {
  const found: string[] = [];
  const budget = { left: MAX_ENTRIES };
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (--budget.left < 0) return;
      const path = join(dir, name);
      let stat: ReturnType<typeof lstatSync>;
      try {
        stat = lstatSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (!CACHES.has(name)) walk(path);
      } else if (stat.ctimeMs > since - MARGIN_MS) {
        const file = stat.isSymbolicLink()
          ? changedTarget(path, since - MARGIN_MS)
          : stat.isFile()
            ? path
            : null;
        if (file) found.push(file);
      }
    }
  };
  walk(folder);
  return found;
}

/**
 * The files of the repository's dependency folders the run changed without changing what they are installed
 * from (`changed`: the repository-relative paths that differ from the baseline commit).
 */
export async function undeclaredDependencyChanges(
  root: string,
  changed: readonly string[],
  since: number,
): Promise<string[]> {
  const folders = (await dependencyFolders(root)).filter(
    (name) => !installSourceChanged(root, name, changed),
  );
  return folders.flatMap((name) => changedIn(join(root, name), since)).slice(0, MAX_FILES);
}
