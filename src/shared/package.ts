import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Baton's own installation: where its package.json, default agents, bin and built chunks are. One
 * walk for every caller, working from the sources (src/…, under vitest) and from the bundle (dist/ or
 * dist/chunks/, also when installed as a dependency).
 */
interface Manifest {
  name?: unknown;
  version?: unknown;
}

export function findPackageRoot(from: string = fileURLToPath(import.meta.url)): string | null {
  let dir = dirname(from);
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
      if (manifest.name === "baton") return dir;
    } catch {
      // no package.json here, or not JSON: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

let cachedRoot: string | undefined;

export function packageRoot(): string {
  cachedRoot ??= findPackageRoot() ?? undefined;
  if (cachedRoot === undefined)
    throw new Error("Baton's installation has no package.json named baton above it");
  return cachedRoot;
}

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as Manifest;
  return typeof manifest.version === "string" ? manifest.version : "0.0.0";
}

/** Baton's default agents (`agents/baton-*.md`). */
export function defaultAgentsDir(): string {
  return join(packageRoot(), "agents");
}

/** `bin/baton.js`, how a hook or a printed command runs this very installation. */
export function binScript(): string {
  return join(packageRoot(), "bin", "baton.js");
}

/** The built child entry of the scripted runner; only the bundle is JavaScript node runs without a loader. */
export function scriptedAgentEntry(): string {
  return join(findPackageRoot() ?? ".", "dist", "runners", "scripted-agent.js");
}
