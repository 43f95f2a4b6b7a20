import { dirname, join, resolve } from "node:path";
import { CONFIG_FILE_NAMES } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";

/** The repository root: the nearest folder with a baton config, a `specs/` folder or a `.git`. */
export function findRepoRoot(start: string): string {
  let dir = resolve(start);
  for (;;) {
    if (CONFIG_FILE_NAMES.some((name) => present(join(dir, name)))) return dir;
    if (present(join(dir, "specs")) || present(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(start);
    dir = parent;
  }
}
