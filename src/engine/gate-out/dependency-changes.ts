import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { changedFilesIn } from "./changed-outside.js";

/**
 * The installed dependencies the verdict tree links in (an ignored `node_modules`, a virtualenv, a `vendor`)
 * may change during a run only with what they are installed from: a file changed there while no manifest or
 * lock file of that ecosystem changed (a patched library, a `node_modules/.bin/node`, a `.pth` in `.venv`) reads
 * empty to the checks, as what the run changed in the user's configuration does. Tool caches kept inside
 * them (`.cache`, `.vite`, `__pycache__`) are written by honest test runs and are left as they are.
 */
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

/**
 * The files of the repository's dependency folders (`folders`, as scratch-tree.ts finds them) the run changed
 * without changing what they are installed from (`changed`: the paths that differ from the baseline commit).
 */
export function undeclaredDependencyChanges(
  root: string,
  folders: readonly string[],
  changed: readonly string[],
  since: number,
): string[] {
  return folders
    .filter((name) => !installSourceChanged(root, name, changed))
    .flatMap((name) => changedFilesIn(join(root, name), since, (dir) => !CACHES.has(dir), MAX_ENTRIES))
    .slice(0, MAX_FILES);
}
