// Plan check of scripts/compat.mjs: every plan file of the repository parses, and `baton plan show` prints
// phases and waves for every active task whose plan file exists.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";

/** parsePlan and computeWaves from the built library, as users get them. */
export function loadPlanModule(lib) {
  if (typeof lib.parsePlan !== "function" || typeof lib.computeWaves !== "function") {
    throw new Error("dist/index.js exports no parsePlan/computeWaves: run `npm run build`");
  }
  return { parsePlan: lib.parsePlan, computeWaves: lib.computeWaves, from: "dist/index.js" };
}

/** Every `.md` in a `plans/` folder of a task folder under specs/ or specs/archive/, repository-relative, sorted. */
export function planFiles(dir) {
  const files = [];
  for (const base of ["specs", join("specs", "archive")]) {
    if (!existsSync(join(dir, base))) continue;
    for (const folder of readdirSync(join(dir, base), { withFileTypes: true })) {
      const plans = join(base, folder.name, "plans");
      if (!folder.isDirectory() || !existsSync(join(dir, plans))) continue;
      for (const name of readdirSync(join(dir, plans)))
        if (name.endsWith(".md")) files.push(join(plans, name));
    }
  }
  return files.sort();
}

/** The plan file `plan show` should read, found without Baton: the last plan artifact, else the highest version. */
function expectedPlan(dir, task) {
  const artifacts = (task.artifacts ?? []).filter((a) => a && typeof a === "object" && a.type === "plan");
  const last = artifacts.at(-1)?.path;
  if (last) return { path: isAbsolute(last) ? relative(dir, last) : last, listed: true };
  const prefix = new RegExp(`^0*${task.project_number}_`);
  const folder = readdirSync(join(dir, "specs")).find((name) => prefix.test(name));
  if (!folder || !existsSync(join(dir, "specs", folder, "plans"))) return null;
  const version = (name) => Number(/(\d+)/.exec(name)?.[1] ?? -1);
  const names = readdirSync(join(dir, "specs", folder, "plans"))
    .filter((n) => n.endsWith(".md"))
    .sort((a, b) => version(a) - version(b) || a.localeCompare(b));
  return names.length === 0 ? null : { path: join("specs", folder, "plans", names.at(-1)), listed: false };
}

/** Runs the check on the working copy `dir`; `p` collects problems, `notes` gets remarks on the original data. */
export function checkPlans({ dir, baton, plan, state, p, notes }) {
  const files = planFiles(dir);
  const totals = { plans: files.length, ok: 0, phases: 0, carried: 0, warnings: [], styles: {} };
  for (const file of files) {
    const result = plan.parsePlan(file, readFileSync(join(dir, file), "utf8"));
    const parsed = result.ok ? result.plan : result.partial;
    totals.phases += parsed.phases.length;
    totals.carried += parsed.phases.filter((ph) => ph.carried).length;
    totals.styles[parsed.style] = (totals.styles[parsed.style] ?? 0) + 1;
    for (const w of result.warnings) totals.warnings.push(`${file}:${w.line}: ${w.message}`);
    if (!result.ok) {
      for (const x of result.problems) p.add(`${file}:${x.line}: ${x.message}`);
      continue;
    }
    const waves = plan.computeWaves(parsed.phases);
    if (waves.ok) totals.ok++;
    else p.add(`${file}: no waves: ${JSON.stringify(waves)}`);
  }

  const shown = [];
  for (const task of state.active_projects) {
    const n = task.project_number;
    const expected = expectedPlan(dir, task);
    if (!expected) continue;
    if (!existsSync(join(dir, expected.path))) {
      // The original data lists a plan that is not there; plan show must refuse with a message, not crash.
      notes.push(`task ${n}: plan artifact ${expected.path} does not exist`);
      try {
        baton(["plan", "show", String(n)], { codes: [2] });
      } catch (error) {
        p.add(`plan show ${n} (missing plan file): ${error.message}`);
      }
      continue;
    }
    try {
      const view = baton(["plan", "show", String(n), "--json"]);
      const text = baton(["plan", "show", String(n)]);
      p.check(view.file === expected.path, `plan show ${n} read ${view.file}, expected ${expected.path}`);
      p.check(
        view.ok && Array.isArray(view.waves),
        `plan show ${n}: not ok: ${JSON.stringify(view.problems)}`,
      );
      p.check(
        /^Phases:$/m.test(text) &&
          /^Waves \((from the dependencies|in the plan's order)[^\n]*\):$/m.test(text),
        `plan show ${n}: no Phases/Waves section saying how its dependencies were read`,
      );
      for (const ph of view.phases) {
        p.check(text.includes(`\n  ${ph.id}. ${ph.name} [`), `plan show ${n}: no line for Phase ${ph.id}`);
      }
      for (const [k, ids] of (view.waves ?? []).entries()) {
        p.check(
          text.includes(`  Wave ${k + 1}: ${ids.join(", ")}`),
          `plan show ${n}: wave ${k + 1} not printed`,
        );
      }
      shown.push(`${n} (${view.phases.length} phases, ${view.waves?.length ?? 0} waves, ${view.reading})`);
    } catch (error) {
      p.add(error.message);
    }
  }
  return { ...totals, shown };
}
