// Lifecycle check of scripts/compat-history.mjs: in a throwaway copy of the repository, one active task of
// each task type it keeps (its own `task_type`/`language` values) goes research → plan → implement with
// scripted agents through the built CLI, routed as the repository routes it; after each operation the
// commit must carry the store exactly as the work tree holds it (HEAD's state.json and TODO.md equal).
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const FROM = { not_started: "research", researched: "plan", planned: "implement" };
const NEXT = { research: "plan", plan: "implement", implement: null };

async function scripts(dist, dir) {
  const { generatePlan, phaseScriptSteps } = await import(
    pathToFileURL(join(dist, "testing/generate-plan.js")).href
  );
  const meta = (status, type) => ({
    writeMetadata: {
      status,
      summary: `${type} written`,
      artifacts: [{ type, path: "{artifact_path}" }],
      metadata: { session_id: "{session_id}", agent_type: "scripted" },
    },
  });
  const report = `# Research Report\n\n${"A finding with its evidence and the lines it concerns. ".repeat(8)}\n`;
  const plan = generatePlan({
    style: "task",
    taskNumber: 0,
    title: "Compat",
    phases: [
      { id: "1", name: "First step" },
      { id: "2", name: "Second step", dependencies: ["1"] },
    ],
  });
  const files = {
    research: { steps: [{ write: "{artifact_path}", content: report }, meta("researched", "research")] },
    plan: { steps: [{ write: "{artifact_path}", content: plan }, meta("planned", "plan")] },
    implement: {
      phases: {
        "*": { steps: phaseScriptSteps({ file: "baton-compat/task-{task_number}-{phase_id}.txt" }) },
      },
    },
  };
  const paths = {};
  for (const [name, script] of Object.entries(files)) {
    paths[name] = join(dir, `${name}.json`);
    writeFileSync(paths[name], JSON.stringify(script));
  }
  return paths;
}

const git = (cwd, args) => spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 1 << 28 });

/** One task per type; returns per type what ran and the first failure, if any. */
export async function checkLifecycle(dist, source) {
  const work = mkdtempSync(join(tmpdir(), "baton-compat-life-"));
  try {
    const clone = join(work, "repo");
    // A copy, not a clone: a snapshot without its largest blobs cannot be checked out again.
    cpSync(source, clone, { recursive: true, verbatimSymlinks: true });
    git(clone, ["config", "user.email", "compat@baton.invalid"]);
    git(clone, ["config", "user.name", "Baton compat"]);
    const paths = await scripts(dist, work);
    const state = JSON.parse(readFileSync(join(clone, "specs/state.json"), "utf8"));
    const byType = new Map();
    for (const task of state.active_projects ?? []) {
      const type = task.task_type ?? task.language ?? "general";
      if (FROM[task.status] && !byType.has(type)) byType.set(type, task);
    }
    const results = [];
    for (const [type, task] of byType) {
      const ran = [];
      let error = null;
      for (let op = FROM[task.status]; op && !error; op = NEXT[op]) {
        const run = spawnSync(
          process.execPath,
          [join(dist, "cli/main.js"), op, String(task.project_number), "--script", paths[op]],
          {
            cwd: clone,
            encoding: "utf8",
          },
        );
        ran.push(op);
        if (run.status !== 0)
          error = `${op} exit ${run.status}: ${(run.stdout + run.stderr).split("\n").find((l) => /refused|baton:/.test(l)) ?? ""}`;
        for (const file of ["state.json", "TODO.md"]) {
          const head = git(clone, ["show", `HEAD:specs/${file}`]).stdout;
          if (!error && head !== readFileSync(join(clone, "specs", file), "utf8"))
            error = `${op}: HEAD's ${file} differs from the work tree's`;
        }
      }
      results.push({ type, task: task.project_number, ran, error });
    }
    return results;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
