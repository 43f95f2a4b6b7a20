import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layeredPlanPhases, phaseScriptSteps } from "../../src/testing/generate-plan.js";
import { BATON_BIN, waitFor } from "../support/cli.js";
import {
  fails,
  GOOD_RESEARCH,
  git,
  ok,
  okJson,
  plannedTaskRepo,
  repo,
  runBaton,
  snapshotSpecs,
  tempDir,
} from "./helpers.js";

/**
 * Repositories as people configure them: folders Baton did not make, ignore rules over the store, line-ending
 * conversion, clean filters, hooks that rewrite what is committed, shallow clones. Each run is honest work,
 * so each must be recorded, committed and verified; none may commit a file the agent did not write.
 */

const REPORT = `# Research Report\n\n${"A finding with its evidence. ".repeat(12)}\n`;

/** A research agent writing `content` as its report (the line endings as given). */
function researcher(dir: string, content = REPORT): string {
  const path = join(dir, ".git", "agent.json");
  const steps = structuredClone(GOOD_RESEARCH) as Array<Record<string, unknown>>;
  steps[0] = { ...steps[0], content };
  writeFileSync(path, JSON.stringify({ steps }));
  return path;
}

/** A repository with tasks 1..n committed, after `setup` ran in it (config, ignore rules, hooks). */
function tasksRepo(n = 1, setup: (dir: string) => void = () => {}): string {
  const dir = repo();
  setup(dir);
  for (let i = 1; i <= n; i++) ok(dir, ["task", "add", `Study part ${i}`, "-l", "general"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "tasks"]);
  return dir;
}

const committedPaths = (dir: string, rev = "HEAD") =>
  git(dir, ["show", "--name-only", "--format=", rev]).split("\n").filter(Boolean);

function verifyPasses(dir: string): void {
  const report = okJson(dir, ["verify"]);
  expect(report.phantoms).toEqual([]);
  expect(report.verified.length).toBeGreaterThan(0);
}

describe("a task folder Baton did not make", () => {
  for (const [what, files] of [
    ["a notes file", ["private-notes.txt"]],
    ["a file in a subfolder", ["drafts/keys.env"]],
  ] as const) {
    it(`is refused at GATE IN when it holds ${what}, and nothing is written or committed`, () => {
      const dir = tasksRepo(2);
      for (const file of files) {
        mkdirSync(join(dir, "specs", "2_study_part_2", file, ".."), { recursive: true });
        writeFileSync(join(dir, "specs", "2_study_part_2", file), "API_TOKEN=sk-live-123\n");
      }
      const head = git(dir, ["rev-parse", "HEAD"]);
      const before = snapshotSpecs(dir);
      const refused = fails(dir, ["research", "2", "--script", researcher(dir)]);
      expect(refused.stdout).toContain("GATE_IN");
      expect(refused.stdout).toContain(files[0]);
      expect(refused.stdout).toContain("specs/2_study_part_2/");
      expect(git(dir, ["rev-parse", "HEAD"])).toBe(head);
      const after = snapshotSpecs(dir);
      for (const [path, bytes] of before) {
        if (!path.startsWith(".baton")) expect(after.get(path)?.equals(bytes), path).toBe(true);
      }
      expect(existsSync(join(dir, "specs", "2_study_part_2", "reports"))).toBe(false);
    });
  }

  it("the folder Baton made for a run that died is the task's: after recover, the task runs again", async () => {
    const dir = tasksRepo(1);
    // The agent writes part of its work, then Baton is killed under it (kill -9, a crash, a full disk).
    const partial = join(dir, ".git", "partial.json");
    writeFileSync(
      partial,
      JSON.stringify({
        steps: [
          { write: "{task_folder}/reports/draft.md", content: "half a finding\n" },
          { sleepMs: 60_000 },
        ],
      }),
    );
    const child = spawn(process.execPath, [BATON_BIN, "research", "1", "--script", partial], {
      cwd: dir,
      stdio: "ignore",
    });
    const draft = join(dir, "specs", "1_study_part_1", "reports", "draft.md");
    await waitFor(() => existsSync(draft), 30_000, 25);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const recovered = okJson(dir, ["recover", "--json"]);
    expect(JSON.stringify(recovered)).toContain("rolled_back");
    expect(existsSync(draft)).toBe(true);
    ok(dir, ["research", "1", "--script", researcher(dir)]);
    expect(committedPaths(dir)).toContain("specs/1_study_part_1/reports/research-001.md");
    verifyPasses(dir);
  });

  it("a file dropped in a task's own folder before a run is not part of that run's commit", () => {
    const dir = tasksRepo(1);
    ok(dir, ["research", "1", "--script", researcher(dir)]);
    writeFileSync(join(dir, "specs", "1_study_part_1", "my-notes.md"), "secret thoughts\n");
    const plan = join(dir, ".git", "plan.json");
    writeFileSync(
      plan,
      JSON.stringify({
        steps: [
          {
            write: "{artifact_path}",
            content: `# Implementation Plan\n\n## Phases\n\n### Phase 1: Do it [NOT STARTED]\n\n${"Steps to take. ".repeat(20)}\n`,
          },
          {
            writeMetadata: {
              status: "planned",
              summary: "planned",
              artifacts: [{ type: "plan", path: "{artifact_path}" }],
              metadata: { session_id: "{session_id}", agent_type: "scripted" },
            },
          },
        ],
      }),
    );
    ok(dir, ["plan", "1", "--script", plan]);
    expect(committedPaths(dir).some((p) => p.endsWith("my-notes.md"))).toBe(false);
    expect(git(dir, ["status", "--porcelain", "--", "specs/1_study_part_1/my-notes.md"])).toContain("??");
    verifyPasses(dir);
  });
});

describe("ignore rules over Baton's record", () => {
  for (const rule of ["specs/*/reports/", "specs/", "*.md"]) {
    it(`commits the report and the store under '${rule}', and verify passes`, () => {
      const dir = tasksRepo(1, (d) => writeFileSync(join(d, ".gitignore"), `${rule}\n`));
      // The first commit of the store needs -f under a rule that hides it.
      git(dir, ["add", "-f", "specs/state.json", "specs/TODO.md"]);
      git(dir, ["commit", "-qm", "store", "--allow-empty"]);
      ok(dir, ["research", "1", "--script", researcher(dir)]);
      const paths = committedPaths(dir);
      expect(paths).toContain("specs/1_study_part_1/reports/research-001.md");
      expect(paths).toContain("specs/state.json");
      expect(paths).toContain("specs/TODO.md");
      verifyPasses(dir);
    });
  }
});

describe("ignore rules over a plan run's record", () => {
  for (const rule of ["specs/", "*.md"]) {
    it(`implement under '${rule}' commits the phase summaries and the run's summary, and verify passes`, () => {
      const dir = plannedTaskRepo(layeredPlanPhases(1, 1));
      writeFileSync(join(dir, ".gitignore"), `${rule}\n`);
      git(dir, ["add", ".gitignore"]);
      git(dir, ["commit", "-qm", "ignore"]);
      const script = join(dir, ".git", "phases.json");
      writeFileSync(script, JSON.stringify({ phases: { "*": { steps: phaseScriptSteps() } } }));
      ok(dir, ["implement", "1", "--script", script]);
      const folder = "specs/1_build_the_parser";
      const committed = git(dir, ["log", "--name-only", "--format="]).split("\n");
      expect(committed).toContain(`${folder}/summaries/phase-1-summary.md`);
      const summary = okJson(dir, ["task", "show", "1", "--json"]).artifacts.find(
        (a: { type: string }) => a.type === "summary",
      );
      expect(summary?.path).toMatch(/summaries\/implementation-summary-\d{8}\.md$/);
      expect(committedPaths(dir)).toContain(summary.path);
      expect(git(dir, ["status", "--porcelain", "--ignored", "--", folder])).toBe("");
      verifyPasses(dir);
    });
  }
});

describe("git's filters and the repository's hooks", () => {
  const crlf = REPORT.replace(/\n/g, "\r\n");

  it("core.autocrlf=true with a CRLF report: recorded, committed, verified", () => {
    const dir = tasksRepo(1, (d) => git(d, ["config", "core.autocrlf", "true"]));
    ok(dir, ["research", "1", "--script", researcher(dir, crlf)]);
    verifyPasses(dir);
  });

  it("a clean filter that changes the bytes git stores: verified against what git stored", () => {
    const dir = tasksRepo(1, (d) => {
      git(d, ["config", "filter.shout.clean", "tr a-z A-Z"]);
      git(d, ["config", "filter.shout.smudge", "cat"]);
      writeFileSync(join(d, ".gitattributes"), "*.md filter=shout\n");
    });
    ok(dir, ["research", "1", "--script", researcher(dir)]);
    expect(git(dir, ["show", "HEAD:specs/1_study_part_1/reports/research-001.md"])).toContain("A FINDING");
    verifyPasses(dir);
  });

  /**
   * Baton's own git runs nothing of the repository's: a commit hook would run outside any sandbox (it could
   * swap the checked report, or copy the key) and an fsmonitor program would run at every `git status`.
   * Neither runs; the commit holds exactly what GATE OUT checked, and nothing is re-stated.
   */
  it("the repository's commit hooks and fsmonitor are never run by Baton's git: the commit holds what GATE OUT checked", () => {
    const ran = join(tempDir("baton-ran-"), "ran");
    const dir = tasksRepo(1);
    {
      const d = dir;
      const hook = join(d, ".git", "hooks", "pre-commit");
      writeFileSync(
        hook,
        `#!/bin/sh\necho hook >> ${ran}\nsed -i 's/finding/FORGED/' specs/*/reports/*.md; git add -A\n`,
      );
      chmodSync(hook, 0o755);
      writeFileSync(join(d, ".git", "fsmonitor.sh"), `#!/bin/sh\necho fsmonitor >> ${ran}\nexit 1\n`);
      chmodSync(join(d, ".git", "fsmonitor.sh"), 0o755);
      git(d, ["config", "core.fsmonitor", join(d, ".git", "fsmonitor.sh")]);
    }
    ok(dir, ["research", "1", "--script", researcher(dir)]);
    expect(existsSync(ran)).toBe(false);
    const committed = git(dir, ["show", "HEAD:specs/1_study_part_1/reports/research-001.md"]);
    expect(committed).toBe(REPORT);
    const evidence = git(dir, ["show", "--name-only", "--format="])
      .split("\n")
      .find((p) => p.includes("/evidence/"))!;
    expect(JSON.parse(readFileSync(join(dir, evidence), "utf8")).restated).toBeUndefined();
    verifyPasses(dir);
  });

  it("hooks kept in the work tree (core.hooksPath=.husky): honest work passes, an agent that rewrites a hook is refused", () => {
    const dir = tasksRepo(2, (d) => {
      mkdirSync(join(d, ".husky"));
      writeFileSync(join(d, ".husky", "pre-commit"), "#!/bin/sh\nexit 0\n");
      chmodSync(join(d, ".husky", "pre-commit"), 0o755);
      git(d, ["config", "core.hooksPath", ".husky"]);
    });
    ok(dir, ["research", "1", "--script", researcher(dir)]);
    verifyPasses(dir);
    const head = git(dir, ["rev-parse", "HEAD"]);
    const path = join(dir, ".git", "hook-writer.json");
    const steps = [
      { write: ".husky/pre-commit", content: "#!/bin/sh\necho pwned > injected.txt; git add injected.txt\n" },
      ...(structuredClone(GOOD_RESEARCH) as unknown[]),
    ];
    writeFileSync(path, JSON.stringify({ steps }));
    const refused = runBaton(dir, ["research", "2", "--script", path]);
    expect(refused.status, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stdout).toContain("HOOKS_CHANGED");
    expect(refused.stdout).toContain(".husky/pre-commit");
    expect(git(dir, ["rev-parse", "HEAD"])).toBe(head);
    expect(existsSync(join(dir, "injected.txt"))).toBe(false);
  });

  it("a shallow clone verifies what it has and names the cut, exit 0", () => {
    const dir = tasksRepo(3);
    for (const n of ["1", "2", "3"]) ok(dir, ["research", n, "--script", researcher(dir)]);
    const clone = repo();
    git(clone, ["fetch", "-q", "--depth", "2", `file://${dir}`, "main"]);
    git(clone, ["checkout", "-q", "FETCH_HEAD"]);
    const report = okJson(clone, ["verify"]);
    expect(report.phantoms).toEqual([]);
    expect(report.verified.map((c: { task: number }) => c.task)).toEqual([3]);
    expect(report.truncated.completions.map((c: { task: number }) => c.task).sort()).toEqual([1, 2]);
    const text = ok(clone, ["verify"]).stdout;
    expect(text).toMatch(/History is shallow \(cut at [0-9a-f]{10}\)/);
    git(clone, ["fetch", "-q", "--unshallow", `file://${dir}`, "main"]);
    const full = okJson(clone, ["verify"]);
    expect(full.phantoms).toEqual([]);
    expect(full.truncated).toBe(null);
    expect(full.verified.map((c: { task: number }) => c.task).sort()).toEqual([1, 2, 3]);
  });
});
