import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { ConfiguredCheck } from "../../config/index.js";
import { CONFIG_FILE_NAMES } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";

/**
 * What decides what "passing" means for a run's checks, as it stood at the baseline: the test files, the
 * runners' configuration, Baton's configuration, and what the check commands run by name (a script, and
 * the npm scripts they run in turn). An agent that changes any of these changes the
 * question instead of answering it; GATE OUT refuses that (CHECKS_TAMPERED) unless the plan names the file.
 */

/** Where tests live by the conventions of the common ecosystems (JS, Python, Go, Rust, JVM, Ruby, .NET). */
const TEST_DIR = /(^|\/)(test|tests|__tests__|__test__|spec|__mocks__|testdata)\//;
const TEST_FILE =
  /(^|\/)(test_[^/]*\.py|[^/]*_test\.(py|go|rb|exs?)|[^/]*\.(test|spec)\.[^/]+|[^/]*(Test|Tests|Spec)\.(java|kt|scala|cs|swift)|conftest\.py)$/;
/**
 * Files a test runner reads its configuration from, wherever they are — and files that change how the runtime
 * starts under it (`.npmrc`'s node-options, a package manager's hooks, Python's sitecustomize), which can
 * patch the assertions before a test runs.
 */
const RUNNER_CONFIG =
  /^(makefile|gnumakefile|justfile|tox\.ini|\.?pytest\.(ini|toml)|setup\.cfg|noxfile\.py|pyproject\.toml|\.coveragerc|\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.c?js|bunfig\.toml|(site|user)customize\.py|(jest|vitest|vitest\.workspace|vite|playwright|karma\.conf|ava\.config|cypress\.config|mocha)(\.config)?\.[^/]+|\.mocharc(\.[^/]+)?|\.nycrc(\.[^/]+)?|\.c8rc(\.[^/]+)?|\.taprc|phpunit\.xml(\.dist)?)$/i;
/** package.json: only what tells a runner what to run; dependencies and the rest stay the agent's. */
export const PACKAGE_CHECK_KEYS = ["scripts", "jest", "mocha", "ava", "c8", "nyc", "tap", "vitest"] as const;

export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}

export function isRunnerConfig(path: string): boolean {
  const name = basename(path);
  return RUNNER_CONFIG.test(name) || (CONFIG_FILE_NAMES as readonly string[]).includes(name);
}

/** The words of a shell command that may name files: quotes dropped, operators and options left out. */
function commandWords(command: string): string[] {
  return command
    .split(/[\s;&|()<>]+/)
    .map((w) =>
      w
        .replace(/^['"]|['"]$/g, "")
        .replace(/^\.\//, "")
        .replace(/\/+$/, ""),
    )
    .filter((w) => w !== "" && !w.startsWith("-") && !w.includes("=") && w !== ".");
}

/** `npm test`, `npm run x`, `yarn x`, `pnpm run x`: the package.json scripts a command runs. */
function scriptsRun(command: string, scripts: Record<string, string>): string[] {
  const named: string[] = [];
  for (const match of command.matchAll(/\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+|run-script\s+)?([\w:.-]+)/g)) {
    const name = match[1] === "t" ? "test" : match[1]!;
    if (scripts[name] !== undefined) named.push(name, `pre${name}`, `post${name}`);
  }
  return named.filter((n) => scripts[n] !== undefined);
}

/** Every command a check runs, following npm scripts into the scripts they run (each once). */
export function reachedCommands(
  checks: readonly ConfiguredCheck[],
  scripts: Record<string, string>,
): string[] {
  const commands = checks.map((c) => c.run);
  const seen = new Set<string>();
  for (let i = 0; i < commands.length; i++) {
    for (const name of scriptsRun(commands[i]!, scripts)) {
      if (seen.has(name)) continue;
      seen.add(name);
      commands.push(scripts[name]!);
    }
  }
  return commands;
}

export interface CheckInputs {
  /** Whether a path (repository-relative) was one of the baseline's check inputs, or is a new runner configuration. */
  covers(path: string): boolean;
  /**
   * Whether a path is on the test side: one of the baseline's check inputs, or a new file a runner would
   * find and load by its name or place (a test, a conftest, a `tests/__init__.py`, a `_test.go`, a
   * runner's or tool's configuration, a dotfile `…rc`).
   */
  testSide(path: string): boolean;
}

/** A dotfile a tool reads its settings from wherever it is (`.npmrc`, `.babelrc`, `.swcrc.json`, …). */
const DOT_RC = /^\.[^/]*rc(\.[^/.]+)?$/;

/** package.json's scripts in a folder, as they are now. */
export function scriptsIn(dir: string): Record<string, string> {
  try {
    const scripts = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { scripts?: unknown })
      .scripts;
    return typeof scripts === "object" && scripts !== null ? (scripts as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** package.json's scripts as `commit` has them. */
export async function baselineScripts(root: string, commit: string): Promise<Record<string, string>> {
  const shown = await runGit(root, ["show", `${commit}:package.json`]);
  if (!shown.ok) return {};
  try {
    const scripts = (JSON.parse(shown.stdout) as { scripts?: unknown }).scripts;
    return typeof scripts === "object" && scripts !== null ? (scripts as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The baseline's check inputs: read once from its commit (the tracked files and the root package.json). */
export async function checkInputsAt(
  root: string,
  commit: string,
  checks: readonly ConfiguredCheck[],
  storePrefix: string,
): Promise<CheckInputs> {
  const listed = await runGit(root, ["ls-tree", "-r", "-z", "--name-only", commit]);
  const tracked = new Set(listed.ok ? listed.stdout.split("\0").filter(Boolean) : []);
  // A file a check runs by name (`bash ci/test.sh`, `node test.js`); a folder or glob it names holds the
  // project's code as well as its tests, and its tests are found by their names.
  const named = new Set(reachedCommands(checks, await baselineScripts(root, commit)).flatMap(commandWords));
  const inStore = (path: string) => path === storePrefix || path.startsWith(`${storePrefix}/`);
  const covers = (path: string) => {
    if (inStore(path)) return false;
    if (isRunnerConfig(path) || basename(path) === "package.json") return true;
    return tracked.has(path) && (isTestPath(path) || named.has(path));
  };
  return {
    covers,
    testSide: (path) => covers(path) || (!inStore(path) && (isTestPath(path) || DOT_RC.test(basename(path)))),
  };
}
