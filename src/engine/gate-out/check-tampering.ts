import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parse as parseToml } from "smol-toml";
import { runGit } from "../../shared/git.js";
import { checkInputsAt, PACKAGE_CHECK_KEYS } from "./check-inputs.js";
import { type Gate, refuse } from "./gate-types.js";
import type { ConfiguredCheck } from "./project-checks.js";

/**
 * The baseline decides what "passing" means: a result that changed a test that existed at the baseline,
 * a runner's configuration, what package.json tells a runner to run, Baton's configuration or a script a
 * check runs by name is refused with CHECKS_TAMPERED (naming each file and its diff) before any check runs,
 * unless the plan (the phase, in a plan run) names that file as one to change. New test files are the
 * agent's to add; they run with the others.
 */
const DIFF_LINES = 16;
const SHOWN_FILES = 4;

function checkKeys(text: string | null): unknown {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    return PACKAGE_CHECK_KEYS.map((key) => value[key] ?? null);
  } catch {
    return text;
  }
}

function current(root: string, path: string): string | null {
  try {
    return readFileSync(join(root, path), "utf8");
  } catch {
    return null;
  }
}

/**
 * pyproject.toml less what no test runner reads: the project's dependencies and metadata, dependency groups,
 * the build backend's requirements, Poetry's dependency tables. Everything else (pytest's `[tool.pytest…]`,
 * coverage, tox, task runners, any tool Baton does not know) is the runner's side and stays the baseline's.
 */
function pyprojectForChecks(text: string | null): unknown {
  if (text === null) return null;
  try {
    const value = parseToml(text) as Record<string, unknown>;
    const tool = table(value["tool"]);
    return {
      ...without(value, ["project", "build-system", "dependency-groups", "tool"]),
      project: without(table(value["project"]), [
        "dependencies",
        "optional-dependencies",
        "version",
        "description",
      ]),
      "build-system": without(table(value["build-system"]), ["requires"]),
      tool: {
        ...tool,
        poetry: without(table(tool["poetry"]), ["dependencies", "dev-dependencies", "group"]),
      },
    };
  } catch {
    return text;
  }
}

const table = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

const without = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));

/** Whether pyproject.toml changed only where runners do not look (dependencies, metadata). */
async function pyprojectUnchangedForChecks(root: string, commit: string, path: string): Promise<boolean> {
  const before = await runGit(root, ["show", `${commit}:${path}`]);
  return isDeepStrictEqual(
    pyprojectForChecks(before.ok ? before.stdout : null),
    pyprojectForChecks(current(root, path)),
  );
}

/** Whether package.json changed only where runners do not look (dependencies, metadata). */
async function packageUnchangedForChecks(root: string, commit: string, path: string): Promise<boolean> {
  const before = await runGit(root, ["show", `${commit}:${path}`]);
  return isDeepStrictEqual(checkKeys(before.ok ? before.stdout : null), checkKeys(current(root, path)));
}

async function describeChange(root: string, commit: string, path: string): Promise<string> {
  const diff = await runGit(root, ["diff", "--no-color", "--no-ext-diff", "-U1", commit, "--", path]);
  let lines = diff.ok
    ? diff.stdout.split("\n").filter((l) => /^[-+@]/.test(l) && !/^(---|\+\+\+) /.test(l))
    : [];
  if (lines.length === 0) {
    const now = current(root, path);
    lines = now === null ? ["(deleted)"] : ["(added)", ...now.split("\n").map((l) => `+${l}`)];
  }
  const shown = lines.slice(0, DIFF_LINES).map((l) => `    ${l}`);
  if (lines.length > DIFF_LINES) shown.push(`    … ${lines.length - DIFF_LINES} more line(s)`);
  return `${path}:\n${shown.join("\n")}`;
}

/**
 * Files of the work tree that differ from `commit`, tracked or not: a retry is held to the baseline commit,
 * so a test weakened by a refused try (or edited by hand) and left in the tree is not the new baseline.
 */
export async function differingFromCommit(root: string, commit: string): Promise<string[]> {
  const tracked = await runGit(root, ["diff", "--name-only", "-z", "--no-renames", commit]);
  const untracked = await runGit(root, ["ls-files", "-z", "--others", "--exclude-standard"]);
  return [...tracked.stdout.split("\0"), ...untracked.stdout.split("\0")].filter((p) => p !== "");
}

/**
 * Of `candidates` (changed paths), the check inputs as `commit` has them that changed where a runner looks and
 * that the plan's text (`allowed`) does not name.
 */
export async function tamperedInputs(
  place: { root: string; storePrefix: string; commit: string },
  checks: readonly ConfiguredCheck[],
  candidates: readonly string[],
  allowed: string,
): Promise<string[]> {
  const { root, commit } = place;
  const inputs = await checkInputsAt(root, commit, checks, place.storePrefix);
  const tampered: string[] = [];
  for (const path of candidates) {
    if (!inputs.covers(path) || allowed.includes(path)) continue;
    if (basename(path) === "package.json" && (await packageUnchangedForChecks(root, commit, path))) continue;
    if (basename(path) === "pyproject.toml" && (await pyprojectUnchangedForChecks(root, commit, path)))
      continue;
    tampered.push(path);
  }
  return tampered;
}

export const refuseTamperedChecks: Gate = async (ctx) => {
  const commit = ctx.baseline?.commit;
  const checks = ctx.checks ?? [];
  if (ctx.operation !== "implement" || !commit || !ctx.changes || checks.length === 0) return { ok: true };
  const thisRun = new Set(ctx.changes.files);
  const candidates = [...new Set([...thisRun, ...(await differingFromCommit(ctx.repoRoot, commit))])].sort();
  const place = { root: ctx.repoRoot, storePrefix: ctx.storePrefix, commit };
  const tampered = await tamperedInputs(place, checks, candidates, ctx.plannedChanges ?? "");
  if (tampered.length === 0) return { ok: true };
  const shown = await Promise.all(
    tampered.slice(0, SHOWN_FILES).map((p) => describeChange(ctx.repoRoot, commit, p)),
  );
  const more = tampered.length > SHOWN_FILES ? `\n  … and ${tampered.slice(SHOWN_FILES).join(", ")}` : "";
  const earlier = tampered.filter((p) => !thisRun.has(p));
  const before =
    earlier.length > 0
      ? ` ${earlier.join(", ")} already differed when this run began (a refused try, or an edit not committed): restore ${earlier.length === 1 ? "it" : "them"} with \`git checkout ${commit.slice(0, 12)} -- <path>\`, or commit the change first.`
      : "";
  return refuse(
    ctx,
    "CHECKS_TAMPERED",
    `the work changed what the checks test, not only the code they test: ${tampered.join(", ")} (tests, runner configuration or scripts as they were at ${commit.slice(0, 12)} decide what passing means; a plan that means to change one names it).${before}\n${shown.join("\n")}${more}`,
  );
};
