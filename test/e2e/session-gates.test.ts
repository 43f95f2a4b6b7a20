import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { asSubagent, git, ok, oneTaskRepo, readJson, runBaton } from "./helpers.js";

const FOLDER = "specs/1_study_the_lexer";

const taskRepo = () => oneTaskRepo();

/** The files the delegated agent writes: its report, then its metadata. */
function writeResult(dir: string, session: string, report: string): void {
  mkdirSync(join(dir, FOLDER, "reports"), { recursive: true });
  writeFileSync(join(dir, FOLDER, "reports/research-001.md"), report);
  writeFileSync(
    join(dir, FOLDER, ".return-meta.json"),
    JSON.stringify({
      status: "researched",
      summary: "The lexer drops the last token.",
      artifacts: [{ type: "research", path: `${FOLDER}/reports/research-001.md` }],
      metadata: { session_id: session, agent_type: "baton-researcher" },
    }),
  );
}

/** What the delegated agent does in the session, as the hooks see it: launched, started, writing, stopping. */
function agentWrites(dir: string, session: string, report: string, lastMessage?: string): void {
  asSubagent(dir, session, () => writeResult(dir, session, report), lastMessage ? { lastMessage } : {});
}

const REPORT = `# Research\n\n${"A finding with its evidence. ".repeat(12)}\n`;

describe("baton gate-in / gate-out (in-session checkpoints)", () => {
  it("opens the checkpoint, tells the model what to delegate, then verifies, records and commits", () => {
    const dir = taskRepo();
    const opened = runBaton(dir, ["gate-in", "research", "1", "the", "tokens"], {
      CLAUDE_CODE_SESSION_ID: "cc-1",
    });
    expect(opened.status).toBe(0);
    const session = /BATON_SESSION: (sess_\d{10}_[0-9a-f]{6})/.exec(opened.stdout)?.[1] ?? "";
    expect(opened.stdout).toContain('invoke the agent "baton-researcher" with the Agent tool');
    expect(opened.stdout).toContain("run_in_background: false");
    expect(opened.stdout).toMatch(new RegExp(`gate-out research 1 --session ${session}`));
    expect(opened.stdout).toContain("Focus: the tokens");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
    expect(readJson(dir, ".baton/checkpoints/1.json")).toMatchObject({
      sessionId: session,
      mode: "session",
      claudeSessionId: "cc-1",
    });
    expect(JSON.parse(readFileSync(join(dir, FOLDER, ".baton-postflight-pending"), "utf8"))).toMatchObject({
      session_id: session,
      skill: "baton-researcher",
      claude_session_id: "cc-1",
    });
    agentWrites(dir, session, REPORT);
    const closed = runBaton(dir, ["gate-out", "research", "1", "--session", session]);
    expect(closed.status).toBe(0);
    expect(closed.stdout).toContain("GATE OUT passed: task 1 research done → researched");
    expect(git(dir, ["log", "-1", "--format=%s%n%b"])).toContain(
      `task 1: complete research\nSession: ${session}`,
    );
    expect(git(dir, ["status", "--porcelain"])).toBe("");
  });

  it("words the delegation for the host that runs the session (--host opencode: the task tool)", () => {
    const dir = taskRepo();
    expect(runBaton(dir, ["gate-in", "research", "1", "--host", "cursor"])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--host must be "claude" or "opencode"'),
    });
    const opened = ok(dir, ["gate-in", "research", "1", "--host", "opencode"]).stdout;
    expect(opened).toContain('Now call the task tool to delegate to the agent "');
    expect(opened).toContain("task_id");
    expect(opened).not.toContain("run_in_background");
    expect(opened).not.toContain("Agent tool");
    expect(opened).toMatch(/^BEGIN PROMPT$/m);
  });

  it("refuses a stub at gate-out with the GATE OUT code; the task stays retryable", () => {
    const dir = taskRepo();
    const session = /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "research", "1"]).stdout)?.[1] ?? "";
    agentWrites(dir, session, "# stub\n");
    const closed = runBaton(dir, ["gate-out", "research", "1", "--session", session, "--json"]);
    expect(closed.status).toBe(1);
    expect(JSON.parse(closed.stdout)).toMatchObject({
      ok: false,
      code: "ARTIFACT_TOO_SMALL",
      status: "researching",
    });
    expect(runBaton(dir, ["gate-in", "research", "1"]).status).toBe(0);
  });

  it("keeps one open checkpoint per task: a second gate-in is refused until gate-out or --force", () => {
    const dir = taskRepo();
    const session = /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "research", "1"]).stdout)?.[1] ?? "";
    const again = runBaton(dir, ["gate-in", "research", "1"]);
    expect(again.status).toBe(1);
    expect(again.stdout).toContain(`close it with \`baton gate-out research 1 --session ${session}\``);
    const wrong = runBaton(dir, ["gate-out", "research", "1", "--session", "sess_0000000000_abcdef"]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain(`open checkpoint is session ${session}`);
    const forced = runBaton(dir, ["gate-in", "research", "1", "--force"]);
    expect(forced.status).toBe(0);
    expect(forced.stdout).not.toContain(session);
  });

  it("lists an abandoned in-session checkpoint with its closing command; recover --force gives it up", () => {
    const dir = taskRepo();
    const session = /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "research", "1"]).stdout)?.[1] ?? "";
    const listed = ok(dir, ["recover", "1"]);
    expect(listed.stdout).toContain(`gate-out research 1 --session ${session}`);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
    const forced = ok(dir, ["recover", "1", "--force"]);
    expect(forced.stdout).toContain("rolled back to not_started");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("not_started");
    expect(existsSync(join(dir, FOLDER, ".baton-postflight-pending"))).toBe(false);
  });
});

describe("an open checkpoint belongs to its gate", () => {
  it("refuses task status, edit, abandon and expand while a run holds the task, with or without the session's environment", () => {
    const dir = taskRepo();
    const session = /BATON_SESSION: (sess_\d{10}_[0-9a-f]{6})/.exec(
      ok(dir, ["gate-in", "research", "1"]).stdout,
    )?.[1];
    const inSession = { CLAUDE_CODE_SESSION_ID: "cc-7" };
    for (const args of [
      ["task", "status", "1", "researched"],
      ["task", "edit", "1", "--title", "Renamed"],
      ["task", "abandon", "1"],
      ["task", "expand", "1", "-s", "A part"],
    ]) {
      const refused = runBaton(dir, args);
      expect(refused.status, args.join(" ")).toBe(1);
      expect(refused.stderr).toContain("while the research run");
      expect(refused.stderr).toContain(`baton gate-out research 1 --session ${session}`);
      // The model dropping CLAUDE_CODE_SESSION_ID (env -u), or a host that sets none (opencode), changes nothing:
      // the open in-session checkpoint says a session is at work.
      for (const env of [inSession, { CLAUDE_CODE_SESSION_ID: "" }]) {
        const forced = runBaton(dir, [...args, "--force"], env);
        expect(forced.status, `${args.join(" ")} --force`).toBe(1);
        expect(forced.stderr).toContain("changed only through its gate");
        expect(`${refused.stderr}${forced.stderr}`).not.toMatch(/task status \d|--force\)?`/);
      }
    }
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
    // --force on another task is refused too while the session holds a checkpoint.
    ok(dir, ["task", "add", "Another task"]);
    const other = runBaton(dir, ["task", "status", "2", "completed", "--force"], {
      CLAUDE_CODE_SESSION_ID: "",
    });
    expect(other.status).toBe(1);
    expect(other.stderr).toContain("while a Claude Code or opencode session holds task 1's research");
    // A hand edit of the store is not adopted either; the next Baton command restores it.
    const state = readFileSync(join(dir, "specs/state.json"), "utf8");
    writeFileSync(join(dir, "specs/state.json"), state.replace('"researching"', '"researched"'));
    const adopt = runBaton(dir, ["adopt"], { CLAUDE_CODE_SESSION_ID: "" });
    expect(adopt.status).toBe(2);
    expect(adopt.stderr).toContain("baton adopt is for a person outside a Claude Code session");
    ok(dir, ["task", "list"]);
    const first = () =>
      readJson(dir, "state.json").active_projects.find(
        (t: { project_number: number }) => t.project_number === 1,
      );
    expect(first().status).toBe("researching");
    // A person gives the checkpoint up (it records nothing unverified); then the task is theirs again.
    ok(dir, ["recover", "1", "--force"]);
    ok(dir, ["task", "status", "1", "blocked", "--reason", "waiting", "--force"]);
    expect(first().status).toBe("blocked");
  });
});

describe("provenance: the result must be the delegated sub-agent's own work", () => {
  const open = (dir: string) =>
    /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "research", "1"]).stdout)?.[1] ?? "";

  it("refuses a result the main thread wrote itself (no sub-agent ran), recording nothing", () => {
    const dir = taskRepo();
    const session = open(dir);
    writeResult(dir, session, REPORT);
    const closed = JSON.parse(
      runBaton(dir, ["gate-out", "research", "1", "--session", session, "--json"]).stdout,
    );
    expect(closed).toMatchObject({ ok: false, code: "AGENT_NOT_RUN", status: "researching" });
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("init");
  });

  it("refuses a result the main thread overwrote after the agent, and one changed where no hook saw it", () => {
    const dir = taskRepo();
    const session = open(dir);
    agentWrites(dir, session, REPORT);
    // The main thread's own Write, reported by PostToolUse without an agent_id.
    writeFileSync(join(dir, FOLDER, "reports/research-001.md"), `${REPORT}\nMain thread's addition.\n`);
    const body = JSON.stringify({
      session_id: "cc-1",
      transcript_path: "/dev/null",
      cwd: dir,
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "python3 -c ..." },
      tool_use_id: "toolu_main",
    });
    const post = spawnSync(process.execPath, [BATON_BIN, "hook", "post-tool-use"], {
      cwd: dir,
      input: body,
      encoding: "utf8",
    });
    expect(post.status).toBe(0);
    const closed = JSON.parse(
      runBaton(dir, ["gate-out", "research", "1", "--session", session, "--json"]).stdout,
    );
    expect(closed).toMatchObject({ ok: false, code: "NOT_WRITTEN_BY_AGENT" });
    expect(closed.message).toContain("last written by the main thread (Bash)");

    const second = taskRepo();
    const s2 = open(second);
    agentWrites(second, s2, REPORT);
    writeFileSync(join(second, FOLDER, "reports/research-001.md"), `${REPORT}\nUnseen edit.\n`);
    const unseen = JSON.parse(
      runBaton(second, ["gate-out", "research", "1", "--session", s2, "--json"]).stdout,
    );
    expect(unseen).toMatchObject({ ok: false, code: "NOT_WRITTEN_BY_AGENT" });
    expect(unseen.message).toContain("changed after the last tool call Baton saw");
  });

  it("never credits the main thread with a sub-agent's write that its Agent call's end saw first", () => {
    const dir = taskRepo();
    const session = open(dir);
    // Parallel sub-agents: another Agent call of the main thread ends between this agent's write and its hook.
    const mainAgentCallEnds = () =>
      spawnSync(process.execPath, [BATON_BIN, "hook", "post-tool-use"], {
        cwd: dir,
        input: JSON.stringify({
          session_id: "cc-1",
          transcript_path: "/dev/null",
          cwd: dir,
          hook_event_name: "PostToolUse",
          tool_name: "Agent",
          tool_input: { description: "the other task", prompt: "…", subagent_type: "baton-researcher" },
          tool_use_id: "toolu_other_agent",
        }),
        encoding: "utf8",
      });
    asSubagent(dir, session, () => {
      writeResult(dir, session, REPORT);
      expect(mainAgentCallEnds().status).toBe(0);
    });
    const closed = JSON.parse(
      runBaton(dir, ["gate-out", "research", "1", "--session", session, "--json"]).stdout,
    );
    expect(closed).toMatchObject({ ok: true });
  });

  it("honours the sub-agent's TASK_ERROR in session as headless runs do", () => {
    const dir = taskRepo();
    const session = open(dir);
    agentWrites(dir, session, REPORT, "TASK_ERROR: the sources could not be reached");
    const closed = JSON.parse(
      runBaton(dir, ["gate-out", "research", "1", "--session", session, "--json"]).stdout,
    );
    expect(closed).toMatchObject({ ok: false, code: "AGENT_REPORTED_ERROR" });
    expect(closed.message).toContain("the sources could not be reached");
  });
});

describe("in-session implement: the diff since gate-in, not the agent's word", () => {
  const PLAN = `${FOLDER}/plans/implementation-001.md`;
  const plannedRepo = () => {
    const dir = taskRepo();
    ok(dir, ["task", "status", "1", "planned", "--force"]);
    mkdirSync(join(dir, FOLDER, "plans"), { recursive: true });
    writeFileSync(
      join(dir, PLAN),
      "# Implementation Plan: Task #1\n\n- **Status**: [NOT STARTED]\n\n## Implementation Phases\n\n### Phase 1: Flag [NOT STARTED]\n\n**Tasks**:\n- [ ] Turn the flag on\n",
    );
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "planned"]);
    return dir;
  };
  const implementer = (dir: string, session: string, code: boolean) =>
    asSubagent(
      dir,
      session,
      () => {
        if (code) {
          mkdirSync(join(dir, "src"), { recursive: true });
          writeFileSync(join(dir, "src/feature.txt"), "on\n");
        }
        const summary = `${FOLDER}/summaries/implementation-summary-001.md`;
        mkdirSync(join(dir, FOLDER, "summaries"), { recursive: true });
        writeFileSync(
          join(dir, summary),
          `# Summary\n\n${"Turned the flag on and tested it. ".repeat(10)}\n`,
        );
        writeFileSync(
          join(dir, FOLDER, ".return-meta.json"),
          JSON.stringify({
            status: "implemented",
            summary: "The flag is on.",
            artifacts: [{ type: "summary", path: summary }],
            files_changed: ["src/feature.txt"],
            completion_data: { completion_summary: "Flag on." },
            metadata: { session_id: session, agent_type: "baton-implementer" },
          }),
        );
      },
      { agentType: "baton-implementer" },
    );
  const gateIn = (dir: string) =>
    /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "implement", "1"]).stdout)?.[1] ?? "";

  it("refuses implemented with no change to the code (NO_CHANGES), recording nothing", () => {
    const dir = plannedRepo();
    const session = gateIn(dir);
    implementer(dir, session, false);
    const closed = JSON.parse(
      runBaton(dir, ["gate-out", "implement", "1", "--session", session, "--json"]).stdout,
    );
    expect(closed).toMatchObject({ ok: false, code: "NO_CHANGES" });
    expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
  });

  it("records a real change with its evidence, and verify accepts it", () => {
    const dir = plannedRepo();
    const session = gateIn(dir);
    implementer(dir, session, true);
    const closed = runBaton(dir, ["gate-out", "implement", "1", "--session", session, "--json"]);
    expect(JSON.parse(closed.stdout), closed.stderr).toMatchObject({ ok: true });
    const evidence = JSON.parse(git(dir, ["show", `HEAD:${FOLDER}/evidence/${session}-implement.json`]));
    expect(evidence).toMatchObject({ status: { to: "completed" }, changes: { files: ["src/feature.txt"] } });
    const committed = git(dir, ["show", "--name-only", "--format=", "HEAD"]);
    expect(committed).toContain(`${FOLDER}/evidence/`);
    // The code the agent changed and listed is in the same commit as the record.
    expect(committed).toContain("src/feature.txt");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    expect(ok(dir, ["verify"]).stdout).toContain("0 phantom(s)");
  });
});
