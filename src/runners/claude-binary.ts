import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/**
 * Where the Claude Code binary is: a configured path, else `claude` on PATH, else the copy bundled in
 * `@anthropic-ai/claude-agent-sdk` (a per-platform optional package, `…-linux-x64/claude`), found the
 * way the SDK finds it.
 */

const SDK = "@anthropic-ai/claude-agent-sdk";
const EXECUTABLE = process.platform === "win32" ? "claude.exe" : "claude";

export const CLAUDE_INSTALL_HINT =
  "install Claude Code (npm install -g @anthropic-ai/claude-code) so that `claude` is on PATH, " +
  'or set the runner\'s "binary" option to its path';

/** glibc unless Node's report says otherwise, as the SDK decides (musl builds cannot run on glibc). */
function isMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}

/** Platform package names to try, in the SDK's order. */
export function platformPackages(
  platform: string = process.platform,
  arch: string = process.arch,
  musl: boolean = isMusl(),
): string[] {
  if (platform !== "linux") return [`${SDK}-${platform}-${arch}`];
  const glibc = `${SDK}-linux-${arch}`;
  return musl ? [`${glibc}-musl`, glibc] : [glibc, `${glibc}-musl`];
}

/** The SDK's bundled binary, or null with the reasons it was not found. */
export function locateBundledClaude(
  packages: string[] = platformPackages(),
): { path: string } | { path: null; reason: string } {
  const tried: string[] = [];
  let resolveFrom: NodeRequire;
  try {
    // Resolving from the SDK's entry (not from this file) finds its platform package even when npm
    // nested it under the SDK instead of hoisting it.
    resolveFrom = createRequire(createRequire(import.meta.url).resolve(SDK));
  } catch {
    return { path: null, reason: `${SDK} is not installed (run npm ci; it is a devDependency)` };
  }
  for (const pkg of packages) {
    try {
      const path = resolveFrom.resolve(`${pkg}/${EXECUTABLE}`);
      accessSync(path, constants.X_OK);
      return { path };
    } catch (error) {
      tried.push(`${pkg}/${EXECUTABLE}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  return {
    path: null,
    reason: `no Claude Code binary for ${process.platform}-${process.arch} (tried ${tried.join("; ")}); reinstall without --omit=optional`,
  };
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A command name looked up in a PATH value the way execvp would, without a shell. Empty entries
 * (`a::b`) mean the current directory in POSIX, which we skip: an agent binary picked up from whatever
 * repository Baton runs in would be a surprise.
 */
export function findOnPath(name: string, pathValue: string | undefined): string | null {
  for (const dir of (pathValue ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

export type ClaudeBinarySource = "config" | "path" | "bundled";

export type ClaudeBinaryLookup =
  | { path: string; source: ClaudeBinarySource }
  | { path: null; message: string };

export interface ClaudeBinaryOptions {
  /** Configured: a path (relative ones resolve against `baseDir`) or a command name searched on PATH. */
  binary?: string;
  baseDir?: string;
  /** The PATH value to search (the agent's environment). */
  pathValue?: string;
  /** Bundled packages to try; tests pass a platform that does not exist. */
  packages?: string[];
}

/**
 * The configured binary when one is set (and nothing else: a configured binary that is missing is a
 * mistake to report, not a reason to run another Claude), else PATH, else the bundled copy.
 */
export function locateClaude(options: ClaudeBinaryOptions = {}): ClaudeBinaryLookup {
  const { binary, pathValue } = options;
  if (binary !== undefined) {
    if (!binary.includes("/")) {
      const found = findOnPath(binary, pathValue);
      return found
        ? { path: found, source: "config" }
        : { path: null, message: `Claude Code binary "${binary}" (runner option "binary") is not on PATH` };
    }
    const path = resolve(options.baseDir ?? process.cwd(), binary);
    return isExecutableFile(path)
      ? { path, source: "config" }
      : {
          path: null,
          message: `Claude Code binary ${path} (runner option "binary") does not exist or is not executable`,
        };
  }
  const onPath = findOnPath(EXECUTABLE, pathValue);
  if (onPath) return { path: onPath, source: "path" };
  const bundled = locateBundledClaude(options.packages);
  if (bundled.path !== null) return { path: bundled.path, source: "bundled" };
  return {
    path: null,
    message: `Claude Code not found: \`${EXECUTABLE}\` is not on PATH and no bundled copy is usable (${bundled.reason}); ${CLAUDE_INSTALL_HINT}`,
  };
}
