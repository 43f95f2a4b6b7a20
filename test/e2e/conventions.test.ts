import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatePlan, phaseScriptSteps } from "../../src/testing/generate-plan.js";
import {
  commitAll,
  fails,
  GOOD_RESEARCH,
  git,
  ok,
  okJson,
  read,
  repo,
  runBaton,
  scriptFile,
} from "./helpers.js";

/**
 * A repository kept the way ModelChecker keeps its own (generated here, never copied): `task_type` in
 * state.json, `**Task Type**` in TODO.md, v2 folders and artifacts, opencode commands in
 * `.opencode/commands/` and agents in `.opencode/agent/subagents/`. Baton must read it with zero config.
 */
function modelCheckerLike(options: { commands: string[] }): string {
  const dir = repo();
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const tasks = [
    { project_number: 12, project_name: "fix_solver_timeouts", status: "researched", task_type: "z3" },
    { project_number: 11, project_name: "port_cli_to_click", status: "not_started", task_type: "python" },
    { project_number: 10, project_name: "document_the_api", status: "completed", task_type: "markdown" },
  ];
  put(
    "specs/state.json",
    `${JSON.stringify({ next_project_number: 13, active_projects: tasks }, null, 2)}\n`,
  );
  const entry = (t: (typeof tasks)[number], title: string) =>
    `### ${t.project_number}. ${title}\n- **Status**: [${t.status.toUpperCase().replace("_", " ")}]\n- **Task Type**: ${t.task_type}\n- **Topic**: solver\n\n**Description**: ${title}.\n\n---\n\n`;
  put(
    "specs/TODO.md",
    `---\nnext_project_number: 13\n---\n\n# TODO\n\n## Tasks\n\n${entry(tasks[0]!, "Fix solver timeouts")}${entry(tasks[1]!, "Port CLI to click")}${entry(tasks[2]!, "Document the API")}`,
  );
  put("specs/012_fix_solver_timeouts/reports/01_solver-timeouts.md", "# Report\n\nFindings.\n");
  put("specs/010_document_the_api/plans/01_api-docs.md", "# Plan\n");
  for (const name of options.commands)
    put(`.opencode/commands/${name}.md`, `---\ndescription: their ${name}\n---\nTheir own ${name}.\n`);
  for (const agent of ["python-research-agent", "python-implementation-agent", "general-research-agent"]) {
    put(
      `.opencode/agent/subagents/${agent}.md`,
      `---\ndescription: ${agent}\nmode: subagent\n---\nTheir ${agent}.\n`,
    );
  }
  commitAll(dir, "a repository as its owners keep it");
  return dir;
}

describe("conventions learned from the repository, with zero config", () => {
  it("reads task_type, routes by the repository's agents, and writes new tasks in its own field names", () => {
    const dir = modelCheckerLike({ commands: ["lake"] });
    const list = okJson(dir, ["task", "list"]) as Array<{ number: number; language: string }>;
    expect(list.map((t) => [t.number, t.language])).toEqual([
      [12, "z3"],
      [11, "python"],
      [10, "markdown"],
    ]);
    const dry = ok(dir, ["research", "11", "--dry-run"]).stdout;
    expect(dry).toContain(
      "agent:     python-research-agent (.opencode/agent/subagents/python-research-agent.md; convention",
    );
    // v2 names learned from the folders: the next artifact of task 12 is 02_, in its zero-padded folder.
    expect(ok(dir, ["research", "12", "--dry-run", "--force"]).stdout).toMatch(
      /artifact: +specs\/012_fix_solver_timeouts\/reports\/02_research\.md/,
    );
    ok(dir, ["task", "add", "Check the encoding", "-l", "python"]);
    const added = JSON.parse(read(dir, "state.json")).active_projects[0];
    expect(added).toMatchObject({ project_number: 13, task_type: "python" });
    expect(added.language).toBeUndefined();
    expect(read(dir, "TODO.md")).toContain(
      "### 13. Check the encoding\n- **Effort**: TBD\n- **Status**: [NOT STARTED]\n- **Task Type**: python\n",
    );
    ok(dir, ["task", "edit", "13", "--language", "z3"]);
    expect(read(dir, "TODO.md")).toContain("- **Task Type**: z3\n");
    expect(read(dir, "TODO.md")).not.toContain("**Language**");
    expect(JSON.parse(read(dir, "state.json")).active_projects[0].task_type).toBe("z3");
    const doctor = ok(dir, ["doctor"]).stdout;
    expect(doctor).toContain(
      'task type: "task_type" in state.json, **Task Type** in TODO.md (learned from the repository)',
    );
    expect(doctor).toContain("names: v2 (008_slug/reports/01_name.md) (learned from the repository)");
    expect(doctor).toContain("opencode: commands in .opencode/commands/, agents in .opencode/agent/");
    expect(okJson(dir, ["status"]).conventions.taskType).toEqual({
      key: "task_type",
      field: "Task Type",
      from: "repository",
    });
  });

  it("the config overrides what was learned", () => {
    const dir = modelCheckerLike({ commands: [] });
    writeFileSync(
      join(dir, "baton.config.json"),
      '{ "taskTypeKey": "language", "taskTypeField": "Type", "artifactNaming": "v1" }\n',
    );
    ok(dir, ["task", "add", "Configured", "-l", "python"]);
    expect(JSON.parse(read(dir, "state.json")).active_projects[0]).toMatchObject({ language: "python" });
    expect(read(dir, "TODO.md")).toContain("- **Type**: python\n");
    expect(ok(dir, ["doctor"]).stdout).toContain("(set in the config)");
  });
});

describe("every task type the repository routes runs every operation", () => {
  const planned = (taskNumber: number) => [
    {
      write: "{artifact_path}",
      content: generatePlan({
        style: "task",
        taskNumber,
        title: "Port",
        phases: [
          { id: "1", name: "Port the parser" },
          { id: "2", name: "Port the commands", dependencies: ["1"] },
        ],
      }),
    },
    {
      writeMetadata: {
        status: "planned",
        summary: "two phases",
        artifacts: [{ type: "plan", path: "{artifact_path}" }],
        metadata: { session_id: "{session_id}", agent_type: "scripted" },
      },
    },
  ];

  it("research, plan and implement a python task (the repository's agent) and a z3 task (no agent: general)", () => {
    const dir = modelCheckerLike({ commands: [] });
    const research = [
      { write: "{artifact_path}", content: GOOD_RESEARCH[0]!.content },
      {
        ...GOOD_RESEARCH[1],
        writeMetadata: {
          ...GOOD_RESEARCH[1]!.writeMetadata,
          artifacts: [{ type: "research", path: "{artifact_path}" }],
        },
      },
    ];
    const phases = scriptFile(dir, ".git/phases", []);
    writeFileSync(
      phases,
      JSON.stringify({
        phases: { "*": { steps: phaseScriptSteps({ file: "src/task-{task_number}-{phase_id}.py" }) } },
      }),
    );
    for (const [task, agent] of [
      [11, "python-implementation-agent"],
      [12, "baton-implementer"],
    ] as const) {
      if (task === 11)
        ok(dir, ["research", String(task), "--script", scriptFile(dir, ".git/research", research)]);
      ok(dir, ["plan", String(task), "--script", scriptFile(dir, ".git/plan", planned(task))]);
      const dry = ok(dir, ["implement", String(task), "--dry-run"]).stdout;
      expect(dry).toMatch(new RegExp(`Phase 1 Port the parser → ${agent}`));
      expect(ok(dir, ["plan", "show", String(task)]).stdout).toMatch(
        new RegExp(`1\\. Port the parser \\[NOT STARTED\\] .* → ${agent} \\(task language`),
      );
      const result = runBaton(dir, ["implement", String(task), "--script", phases]);
      expect(result.status, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain(`implement done → completed`);
      expect(result.stdout).toContain(`via ${agent}`);
      // Each commit carried exactly the store Baton wrote: HEAD's equals the work tree's.
      expect(git(dir, ["show", "HEAD:specs/state.json"])).toBe(read(dir, "state.json"));
      expect(git(dir, ["show", "HEAD:specs/TODO.md"])).toBe(read(dir, "TODO.md"));
    }
  });
});

describe("baton init --host opencode in a repository with its own opencode tree", () => {
  it("refuses to install a command beside one of the same name in either spelling, and writes nothing", () => {
    const dir = modelCheckerLike({ commands: ["research", "lake"] });
    const result = fails(dir, ["init", "--host", "opencode"], 1);
    expect(result.stdout + result.stderr).toContain(
      "conflict: .opencode/commands/research.md exists and was not written by baton init",
    );
    expect(existsSync(join(dir, ".opencode", "command"))).toBe(false);
    expect(existsSync(join(dir, ".claude"))).toBe(false);
    expect(readFileSync(join(dir, ".opencode/commands/research.md"), "utf8")).toContain(
      "Their own research.",
    );
  });

  it("installs into the repository's own folders, only opencode's files, and not over its agents", () => {
    const dir = modelCheckerLike({ commands: ["lake"] });
    ok(dir, ["init", "--host", "opencode"]);
    expect(existsSync(join(dir, ".opencode/commands/research.md"))).toBe(true);
    expect(existsSync(join(dir, ".opencode/command"))).toBe(false);
    expect(existsSync(join(dir, ".claude"))).toBe(false);
    // Baton's own agents go in the repository's agent folder; its general-research-agent stays the one routing finds.
    expect(existsSync(join(dir, ".opencode/agent/baton-planner.md"))).toBe(true);
    expect(existsSync(join(dir, ".opencode/agents"))).toBe(false);
    expect(ok(dir, ["research", "12", "--dry-run", "--force"]).stdout).toContain(
      ".opencode/agent/subagents/general-research-agent.md",
    );
    ok(dir, ["init", "--uninstall"]);
    expect(existsSync(join(dir, ".opencode/commands/research.md"))).toBe(false);
    expect(readFileSync(join(dir, ".opencode/commands/lake.md"), "utf8")).toContain("Their own lake.");
  });
});
