import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layeredPlanPhases, phaseScriptSteps } from "../../src/testing/generate-plan.js";
import {
  GOOD_RESEARCH,
  git,
  ok,
  oneTaskRepo,
  plannedTaskRepo,
  readJson,
  runBaton,
  runBatonAsync,
} from "./helpers.js";

/**
 * A result is judged by what git says changed and by the project's own checks, not by the agent's
 * word; and no record runs ahead of its commit.
 */
const FOLDER = "specs/1_build_the_parser";
const PLAN = `${FOLDER}/plans/implementation-001.md`;

const plannedTask = (phases = 1, config?: object) => plannedTaskRepo(layeredPlanPhases(1, phases), config);

/** Scripts live in .git/ so that `git status` shows only what the run itself left. */
function script(dir: string, body: object, name = "agent"): string {
  const path = join(dir, ".git", `${name}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
}

const summaryStep = {
  write: "{summary_file}",
  content: `# Phase {phase_id}, iteration {iteration}\n\n${"Done and verified. ".repeat(10)}\n`,
};
const metadata = (files: string[]) => ({
  writeMetadata: {
    status: "implemented",
    summary: "Phase {phase_id} implemented",
    artifacts: [{ type: "summary", path: "{summary_file}" }],
    files_changed: files,
    metadata: { session_id: "{session_id}", agent_type: "scripted-phase-agent" },
  },
});
const subjects = (dir: string) => git(dir, ["log", "--format=%s"]).trim().split("\n");
const plan = (dir: string) => readFileSync(join(dir, PLAN), "utf8");

describe("diff evidence at the phase barrier", () => {
  const cases: Array<[string, unknown[], string]> = [
    [
      "a listed file that did not change",
      [
        { write: "src/other.txt", content: "x\n" },
        summaryStep,
        metadata(["src/other.txt", "src/feature.txt"]),
      ],
      "CLAIMED_UNCHANGED",
    ],
    ["implemented with no change at all", [summaryStep, metadata([])], "NO_CHANGES"],
    [
      'files_changed: ["."]',
      [{ write: "src/feature.txt", content: "on\n" }, summaryStep, metadata(["."])],
      "FILE_IS_REPO_ROOT",
    ],
    [
      "a file outside the repository",
      [{ write: "src/feature.txt", content: "on\n" }, summaryStep, metadata(["../elsewhere.txt"])],
      "FILE_OUTSIDE_REPO",
    ],
  ];
  for (const [name, steps, code] of cases) {
    it(`refuses ${name} (${code}); nothing is committed or marked complete`, () => {
      const dir = plannedTask();
      const result = runBaton(dir, [
        "implement",
        "1",
        "--script",
        script(dir, { phases: { "*": { steps } } }),
      ]);
      const shown = `${result.stdout}\n${result.stderr}`;
      expect(result.status, shown).toBe(1);
      expect(shown).toContain(code);
      expect(subjects(dir).some((s) => s.startsWith("task 1 phase"))).toBe(false);
      expect(plan(dir)).not.toMatch(/### Phase 1: .*\[COMPLETED\]/);
    });
  }

  it("passes an honest phase, and keeps what it changed without listing as evidence", () => {
    const dir = plannedTask();
    const steps = [
      { write: "src/feature.txt", content: "on\n" },
      { write: "src/helper.txt", content: "helps\n" },
      summaryStep,
      metadata(["src/feature.txt"]),
    ];
    const result = runBaton(dir, [
      "implement",
      "1",
      "--json",
      "--script",
      script(dir, { phases: { "*": { steps } } }),
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(subjects(dir)).toContain("task 1 phase 1: Step 1.1");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
    // The operation's evidence is in its commit, and verify accepts the history.
    const evidence = git(dir, ["show", "--name-only", "--format=", "HEAD"])
      .split("\n")
      .find((p) => p.includes("/evidence/"));
    expect(evidence).toBeDefined();
    expect(JSON.parse(git(dir, ["show", `HEAD:${evidence}`]))).toMatchObject({
      task: 1,
      status: { to: "completed" },
    });
    expect(ok(dir, ["verify"]).stdout).toContain("0 phantom(s)");
  });

  it("refuses a listed file git ignores, naming the rule (CLAIMED_IGNORED); it is never committed", () => {
    const dir = plannedTask();
    writeFileSync(join(dir, ".gitignore"), "# build output\n*.log\n");
    git(dir, ["add", ".gitignore"]);
    git(dir, ["commit", "-qm", "ignore logs"]);
    const steps = [
      { write: "src/feature.txt", content: "on\n" },
      { write: "build.log", content: "built\n" },
      summaryStep,
      metadata(["src/feature.txt", "build.log"]),
    ];
    const result = runBaton(dir, ["implement", "1", "--script", script(dir, { phases: { "*": { steps } } })]);
    const shown = `${result.stdout}\n${result.stderr}`;
    expect(result.status, shown).toBe(1);
    expect(shown).toContain(
      "CLAIMED_IGNORED: files_changed lists build.log (ignored by .gitignore:2: *.log)",
    );
    expect(subjects(dir).some((s) => s.startsWith("task 1 phase"))).toBe(false);
    expect(git(dir, ["log", "--all", "--name-only", "--format="])).not.toContain("build.log");
  });

  it("does not credit the agent with a file a person was already editing", () => {
    const dir = plannedTask();
    writeFileSync(join(dir, "notes.txt"), "a person's work in progress\n");
    const steps = [
      { write: "src/other.txt", content: "x\n" },
      summaryStep,
      metadata(["src/other.txt", "notes.txt"]),
    ];
    const result = runBaton(dir, ["implement", "1", "--script", script(dir, { phases: { "*": { steps } } })]);
    expect(result.status).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toContain("CLAIMED_UNCHANGED");
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("a person's work in progress\n");
  });
});

/**
 * These agents write into .git — to leave a note for the test, or to leave git locked as a git process killed
 * mid-commit would — which the sandbox forbids (test/e2e/sandbox.test.ts): they run unsandboxed on purpose.
 */
const UNSANDBOXED = ["--sandbox", "off"];

describe("the project's checks", () => {
  const flag = { checks: [{ name: "flag", run: "grep -qx on src/feature.txt" }] };
  const writes = (value: string) => [
    { write: "src/feature.txt", content: `${value}\n` },
    // Into .git, where the test can read it and the work tree's diff does not see it: only unsandboxed.
    { write: ".git/prompt-{iteration}.txt", content: "{prompt}" },
    summaryStep,
    metadata(["src/feature.txt"]),
  ];

  it("refuses a phase that breaks a check, and the next iteration, given the failure, fixes it", () => {
    const dir = plannedTask(1, flag);
    const agent = script(dir, { phases: { "*": { iterations: [writes("off"), writes("on")] } } });
    const result = runBaton(dir, ["implement", "1", "--script", agent, ...UNSANDBOXED]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const second = readFileSync(join(dir, ".git", "prompt-2.txt"), "utf8");
    expect(second).toContain('check "flag" (`grep -qx on src/feature.txt`) failed in the verdict tree');
    expect(second).toContain("exit code 1");
    expect(readFileSync(join(dir, "src/feature.txt"), "utf8")).toBe("on\n");
    expect(subjects(dir)).toContain("task 1 phase 1: Step 1.1");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
  });

  it("stops at maxIterations with CHECK_FAILED, the command, its exit code and output; the task stays retryable", () => {
    const dir = plannedTask(1, {
      ...flag,
      checks: [{ name: "flag", run: "echo expected on, got $(cat src/feature.txt); exit 3" }],
      phases: { maxIterations: 2 },
    });
    const result = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script(dir, { phases: { "*": { steps: writes("off") } } }),
      ...UNSANDBOXED,
    ]);
    const shown = `${result.stdout}\n${result.stderr}`;
    expect(result.status, shown).toBe(1);
    expect(shown).toContain("CHECK_FAILED");
    expect(shown).toContain("exit code 3");
    expect(shown).toContain("expected on, got off");
    expect(subjects(dir).some((s) => s.startsWith("task 1 phase"))).toBe(false);
    const errors = readJson(dir, "errors.json").errors as Array<{ message: string }>;
    expect(errors.some((e) => e.message.includes("CHECK_FAILED"))).toBe(true);
  });

  it("kills a check's whole process group at its timeout", () => {
    const dir = plannedTask(1, {
      checks: [{ name: "slow", run: "sleep 30 & sleep 30; echo never", timeoutMs: 300 }],
      phases: { maxIterations: 1 },
    });
    const started = Date.now();
    const result = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script(dir, { phases: { "*": { steps: writes("on") } } }),
      ...UNSANDBOXED,
    ]);
    expect(result.status).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toMatch(/check "slow" .* failed[^:]*: .*time/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe("a record never runs ahead of its commit", () => {
  // A lock another git holds for its moment is waited out (10 s); these locks are stale, so wait little.
  process.env["BATON_GIT_LOCK_WAIT_MS"] = "300";
  it("waits out a lock another git holds for its moment, at GATE IN and at COMMIT", async () => {
    const wait = process.env["BATON_GIT_LOCK_WAIT_MS"];
    delete process.env["BATON_GIT_LOCK_WAIT_MS"];
    try {
      const dir = oneTaskRepo();
      const lock = join(dir, ".git", "index.lock");
      writeFileSync(lock, "");
      const agent = join(dir, ".git", "agent.json");
      // The agent's last act takes the lock again, as an editor's `git status` might while Baton commits.
      writeFileSync(
        agent,
        JSON.stringify({ steps: [...GOOD_RESEARCH, { write: ".git/index.lock", content: "" }] }),
      );
      const run = runBatonAsync(dir, ["research", "1", "--script", agent, ...UNSANDBOXED]);
      let released = 0;
      const releaser = setInterval(() => {
        if (existsSync(lock)) {
          rmSync(lock);
          released++;
        }
      }, 700);
      const result = await run;
      clearInterval(releaser);
      expect(result.status, result.stdout + result.stderr).toBe(0);
      expect(released).toBeGreaterThanOrEqual(2);
      expect(subjects(dir)[0]).toBe("task 1: complete research");
    } finally {
      if (wait !== undefined) process.env["BATON_GIT_LOCK_WAIT_MS"] = wait;
    }
  }, 60_000);

  it("a stale .git/index.lock refuses GATE IN before any agent runs", () => {
    const dir = oneTaskRepo();
    writeFileSync(join(dir, ".git", "index.lock"), "");
    const agent = join(dir, ".git", "agent.json");
    writeFileSync(agent, JSON.stringify({ steps: GOOD_RESEARCH }));
    const result = runBaton(dir, ["research", "1", "--script", agent]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("index.lock exists");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("not_started");
    expect(existsSync(join(dir, "specs/1_study_the_lexer/reports/research-001.md"))).toBe(false);
  });

  it("git refusing the commit fails the run; the recorded result is committed by recover once git works", () => {
    const dir = oneTaskRepo();
    const agent = join(dir, ".git", "agent.json");
    // The agent's last act leaves git locked, as a git process killed mid-commit would.
    writeFileSync(
      agent,
      JSON.stringify({ steps: [...GOOD_RESEARCH, { write: ".git/index.lock", content: "" }] }),
    );
    const result = runBaton(dir, ["research", "1", "--script", agent, ...UNSANDBOXED]);
    expect(result.status, result.stdout).toBe(1);
    expect(result.stdout).toContain("[COMMIT_FAILED]");
    expect(result.stdout).toContain("baton recover 1");
    expect(subjects(dir)[0]).toBe("init");
    expect(existsSync(join(dir, "specs/.baton/checkpoints/1.json"))).toBe(true);
    // Still locked: recover says so and keeps the checkpoint.
    const still = runBaton(dir, ["recover", "1"]);
    expect(still.status).toBe(1);
    expect(still.stdout).toContain("COMMIT_FAILED");
    rmSync(join(dir, ".git", "index.lock"));
    ok(dir, ["recover", "1"]);
    expect(subjects(dir)[0]).toBe("task 1: complete research");
    expect(git(dir, ["show", "--name-only", "--format=", "HEAD"])).toContain("reports/research-001.md");
    expect(existsSync(join(dir, "specs/.baton/checkpoints/1.json"))).toBe(false);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
  });

  it("a phase whose commit git refuses is not left [COMPLETED]", () => {
    const dir = plannedTask(2);
    const locking = [...phaseScriptSteps(), { write: ".git/index.lock", content: "" }];
    const agent = script(dir, { phases: { "1": { steps: locking }, "*": { steps: phaseScriptSteps() } } });
    const result = runBaton(dir, ["implement", "1", "--script", agent, ...UNSANDBOXED]);
    expect(result.status).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toContain("COMMIT_FAILED");
    expect(plan(dir)).not.toMatch(/### Phase 1: .*\[COMPLETED\]/);
    rmSync(join(dir, ".git", "index.lock"));
    // Its work is still in the tree, dirty at the next baseline: the next attempt must change it again.
    const again = [
      { write: "src/phase-{phase_id}.ts", content: "export const phase = '{phase_id}'; // {session_id}\n" },
    ];
    const rerun = script(
      dir,
      { phases: { "*": { steps: [...again, ...phaseScriptSteps().slice(1)] } } },
      "again",
    );
    const second = runBaton(dir, ["implement", "1", "--script", rerun]);
    expect(second.status, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(subjects(dir)).toContain("task 1 phase 1: Step 1.1");
  });

  it("never takes a control file for an artifact, never commits a temp file, and commits errors.json", () => {
    const dir = oneTaskRepo();
    const folder = "specs/1_study_the_lexer";
    const metaAsArtifact = join(dir, ".git", "meta.json");
    writeFileSync(
      metaAsArtifact,
      JSON.stringify({
        steps: [
          {
            writeMetadata: {
              status: "researched",
              summary: "the metadata is the report",
              artifacts: [{ type: "research", path: "{metadata_file}" }],
              metadata: { session_id: "{session_id}", agent_type: "scripted", padding: "x".repeat(400) },
            },
          },
        ],
      }),
    );
    const refused = runBaton(dir, ["research", "1", "--script", metaAsArtifact]);
    expect(refused.stdout).toContain("ARTIFACT_CONTROL_FILE");
    expect(git(dir, ["status", "--porcelain"])).toContain("specs/errors.json");
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, ".notes.md.baton-4242-0123abcd.tmp"), "half a write");
    const good = join(dir, ".git", "good.json");
    writeFileSync(good, JSON.stringify({ steps: GOOD_RESEARCH }));
    ok(dir, ["research", "1", "--script", good]);
    const committed = git(dir, ["show", "--name-only", "--format=", "HEAD"]);
    expect(committed).toContain("specs/errors.json");
    expect(committed).not.toContain(".tmp");
    expect(git(dir, ["ls-files"])).not.toContain(".tmp");
  });

  it("refuses a research report that is a near copy of the task's earlier report", () => {
    const dir = oneTaskRepo();
    const report = `# Research Report\n\n${Array.from({ length: 15 }, (_, i) => `- Finding ${i}: token ${i} is dropped at src/lexer.ts:${40 + i} when the input ends early.`).join("\n")}\n`;
    const first = join(dir, ".git", "first.json");
    const firstSteps = [
      { write: "{task_folder}/reports/research-001.md", content: report },
      GOOD_RESEARCH[1],
    ];
    writeFileSync(first, JSON.stringify({ steps: firstSteps }));
    ok(dir, ["research", "1", "--script", first]);
    const again = join(dir, ".git", "again.json");
    writeFileSync(
      again,
      JSON.stringify({
        steps: [
          { write: "{task_folder}/reports/research-002.md", content: `${report}\nOne more line.\n` },
          {
            writeMetadata: {
              status: "researched",
              summary: "found it again",
              artifacts: [{ type: "research", path: "{task_folder}/reports/research-002.md" }],
              metadata: { session_id: "{session_id}", agent_type: "scripted" },
            },
          },
        ],
      }),
    );
    const refused = runBaton(dir, ["research", "1", "--force", "--script", again]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain("ARTIFACT_NEAR_COPY");
    expect(refused.stdout).toContain("research-001.md");
  });
});
