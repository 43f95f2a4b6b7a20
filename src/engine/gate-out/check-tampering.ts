import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { runGit } from "../../shared/git.js";
import { checkInputsAt, PACKAGE_CHECK_KEYS } from "./check-inputs.js";
import { type Gate, refuse } from "./gate-types.js";

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

export const refuseTamperedChecks: Gate = async (ctx) => {
  const commit = ctx.baseline?.commit;
  const checks = ctx.checks ?? [];
  if (ctx.operation !== "implement" || !commit || !ctx.changes || checks.length === 0) return { ok: true };
  const inputs = await checkInputsAt(ctx.repoRoot, commit, checks, ctx.storePrefix);
  const allowed = ctx.plannedChanges ?? "";
  const tampered: string[] = [];
  for (const path of ctx.changes.files) {
    if (!inputs.covers(path) || allowed.includes(path)) continue;
    if (basename(path) === "package.json" && (await packageUnchangedForChecks(ctx.repoRoot, commit, path)))
      continue;
    tampered.push(path);
  }
  if (tampered.length === 0) return { ok: true };
  const shown = await Promise.all(
    tampered.slice(0, SHOWN_FILES).map((p) => describeChange(ctx.repoRoot, commit, p)),
  );
  const more = tampered.length > SHOWN_FILES ? `\n  … and ${tampered.slice(SHOWN_FILES).join(", ")}` : "";
  return refuse(
    ctx,
    "CHECKS_TAMPERED",
    `the work changed what the checks test, not only the code they test: ${tampered.join(", ")} (tests, runner configuration or scripts as they were at ${commit.slice(0, 12)} decide what passing means; a plan that means to change one names it)\n${shown.join("\n")}${more}`,
  );
};
