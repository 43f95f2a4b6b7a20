import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { loadConfig } from "../config/index.js";
import { BATON_DIR } from "../shared/baton-paths.js";
import { type StoreContext, storeContext } from "../state/index.js";
import { type GeneratedRepo, type GenerateOptions, generateRepo } from "./generate-repo.js";

/** A generated repository in a temp git repo, for tests of the store that need real files. */
export async function tempStore(
  options: Omit<GenerateOptions, "dir"> = { active: 0 },
): Promise<{ dir: string; ctx: StoreContext; repo: GeneratedRepo; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "baton-store-"));
  execFileSync("git", ["init", "-q"], { cwd: dir });
  const repo = generateRepo({ ...options, dir });
  const ctx = storeContext(await loadConfig(dir));
  return { dir, ctx, repo, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every file under specs/ with its bytes, to assert that a rejected write changed nothing. */
export function snapshotFiles(specsDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      // Baton's own control folder (lock, journal) is not user data.
      if (name === BATON_DIR) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(specsDir, path)] = readFileSync(path, "utf8");
    }
  };
  walk(specsDir);
  return out;
}
