import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { asSubagent, git, ok, oneTaskRepo, readJson, runBaton } from "./helpers.js";

/**
 * Baton is the only writer of the task store. Whatever way a tool call changes state.json or TODO.md,
 * the hook after it restores Baton's last write and says so; a Baton write in a session restores it
 * too; a person outside a session keeps an edit on purpose (adopt), and no Baton commit ever carries a
 * change Baton did not make.
 */
const stateOf = (dir: string) => readFileSync(join(dir, "specs", "state.json"), "utf8");

function afterToolCall(dir: string, event: "post-tool-use" | "post-tool-use-failure", command: string) {
  const input = JSON.stringify({
    session_id: "cc-1",
    transcript_path: "/dev/null",
    cwd: dir,
    hook_event_name: event === "post-tool-use" ? "PostToolUse" : "PostToolUseFailure",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: "toolu_1",
  });
  const result = spawnSync(process.execPath, [BATON_BIN, "hook", event], {
    cwd: dir,
    input,
    encoding: "utf8",
  });
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout || "{}") as { decision?: string; reason?: string };
}

/** The damage families that slip past any list of forbidden command patterns. */
const DAMAGE = [
  `python3 -c "import os, json; p = os.path.join('specs', 'state.json'); d = json.load(open(p)); d['active_projects'][0]['status'] = 'researched'; json.dump(d, open(p, 'w'))"`,
  `cd specs && python3 -c "open('state.json', 'a').write(' ')"`,
  `F=specs/state.json; sed -i 's/not_started/completed/' "$F"`,
  `sed -i 's/not_started/planned/' /proc/self/cwd/specs/state.json`,
  `bash -c "sed -i 's/not_started/implemented/' specs/state.json"`,
  `S=specs; git checkout HEAD~1 -- "$S/state.json"`,
];

describe("the sealed store", () => {
  for (const [i, command] of DAMAGE.entries()) {
    it(`restores a change made by: ${command.slice(0, 60)}`, () => {
      const dir = oneTaskRepo();
      // A second commit so that `git checkout HEAD~1` has an older store to bring back.
      ok(dir, ["task", "add", "Second task", "-l", "general"]);
      git(dir, ["commit", "-qam", "second"]);
      const sealed = stateOf(dir);
      execFileSync("bash", ["-c", command], { cwd: dir });
      expect(stateOf(dir), `damage ${i} did not change the file`).not.toBe(sealed);
      const reply = afterToolCall(dir, i % 2 === 0 ? "post-tool-use" : "post-tool-use-failure", command);
      expect(reply.decision).toBe("block");
      expect(reply.reason).toContain(
        "specs/state.json changed outside Baton in this tool call and Baton restored its last write",
      );
      expect(stateOf(dir)).toBe(sealed);
    });
  }

  it("a Baton write during a session restores a change no hook saw, and its commit never carries it", () => {
    const dir = oneTaskRepo();
    const session = /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "research", "1"]).stdout)?.[1] ?? "";
    const sealed = stateOf(dir);
    writeFileSync(join(dir, "specs", "state.json"), sealed.replace('"researching"', '"completed"'));
    asSubagent(dir, session, () => {
      const folder = join(dir, "specs", "1_study_the_lexer");
      execFileSync("mkdir", ["-p", join(folder, "reports")]);
      writeFileSync(
        join(folder, "reports", "research-001.md"),
        `# Research\n\n${"A finding with its evidence. ".repeat(12)}\n`,
      );
      writeFileSync(
        join(folder, ".return-meta.json"),
        JSON.stringify({
          status: "researched",
          summary: "found",
          artifacts: [{ type: "research", path: "specs/1_study_the_lexer/reports/research-001.md" }],
          metadata: { session_id: session, agent_type: "baton-researcher" },
        }),
      );
    });
    // asSubagent's PostToolUse already restored it; damage it again where no hook sees it.
    writeFileSync(
      join(dir, "specs", "state.json"),
      stateOf(dir).replace('"language": "general"', '"language": "forged"'),
    );
    const closed = runBaton(dir, ["gate-out", "research", "1", "--session", session]);
    expect(closed.status, closed.stdout + closed.stderr).toBe(0);
    expect(closed.stderr).toContain("changed outside Baton; restored from Baton's last write");
    expect(readJson(dir, "state.json").active_projects[0]).toMatchObject({
      status: "researched",
      language: "general",
    });
    expect(git(dir, ["show", "HEAD", "--", "specs/state.json"])).not.toMatch(/forged|"completed"/);
  });

  it("restores a deleted checkpoint: a gate is not escaped by removing it", () => {
    const dir = oneTaskRepo();
    const session = /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "research", "1"]).stdout)?.[1] ?? "";
    const checkpoint = join(dir, "specs", ".baton", "checkpoints", "1.json");
    const before = readFileSync(checkpoint, "utf8");
    execFileSync("bash", ["-c", "D=specs/.baton; rm -f $D/checkpoints/*.json"], { cwd: dir });
    const reply = afterToolCall(dir, "post-tool-use", "rm");
    expect(reply.reason).toContain("specs/.baton/checkpoints/1.json (deleted) changed outside Baton");
    expect(readFileSync(checkpoint, "utf8")).toBe(before);
    expect(readJson(dir, ".baton/checkpoints/1.json").sessionId).toBe(session);
    // Outside a session too: a checkpoint is never a person's edit to keep.
    execFileSync("rm", [checkpoint]);
    ok(dir, ["adopt"]);
    expect(existsSync(checkpoint)).toBe(true);
  });

  it("outside a session a person's edit is kept, shown by doctor, and adopted on purpose", () => {
    const dir = oneTaskRepo();
    writeFileSync(join(dir, "specs", "state.json"), stateOf(dir).replace('"general"', '"meta"'));
    const doctor = JSON.parse(runBaton(dir, ["doctor", "--json"]).stdout);
    expect(doctor.findings.map((f: { code: string }) => f.code)).toContain("STORE_CHANGED_OUTSIDE_BATON");
    expect(runBaton(dir, ["adopt"], { CLAUDE_CODE_SESSION_ID: "cc-1" }).status).toBe(2);
    expect(ok(dir, ["adopt"]).stdout).toBe("Adopted: specs/state.json\n");
    expect(readJson(dir, "state.json").active_projects[0].language).toBe("meta");
    expect(JSON.parse(runBaton(dir, ["doctor", "--json"]).stdout).findings).toEqual([]);
  });

  it("restores a deleted or rewritten marker, and closes it for good only through gate-out", () => {
    const dir = oneTaskRepo();
    const session = /BATON_SESSION: (\S+)/.exec(ok(dir, ["gate-in", "research", "1"]).stdout)?.[1] ?? "";
    const marker = join(dir, "specs", "1_study_the_lexer", ".baton-postflight-pending");
    const before = readFileSync(marker, "utf8");
    for (const damage of [
      "find specs -name .baton-postflight-pending -delete",
      `python3 -c "import glob; [open(p, 'w').write('{}') for p in glob.glob('specs/*/.baton-postflight-pending')]"`,
    ]) {
      execFileSync("bash", ["-c", damage], { cwd: dir });
      expect(existsSync(marker) ? readFileSync(marker, "utf8") : null).not.toBe(before);
      const reply = afterToolCall(dir, "post-tool-use", damage);
      expect(reply.reason).toContain("specs/1_study_the_lexer/.baton-postflight-pending");
      expect(readFileSync(marker, "utf8")).toBe(before);
    }
    // Nobody adopts it either: doctor names it as Baton's own, adopt is refused while the session's checkpoint
    // is open, and the next Baton command puts it back.
    execFileSync("rm", [marker]);
    const doctor = JSON.parse(runBaton(dir, ["doctor", "--json"]).stdout) as {
      findings: Array<{ code: string; fix?: string; path?: string }>;
    };
    expect(doctor.findings.find((f) => f.path === marker)?.fix).toContain("a file only Baton writes");
    expect(runBaton(dir, ["adopt"]).status).toBe(2);
    ok(dir, ["task", "list"]);
    expect(readFileSync(marker, "utf8")).toBe(before);
    // The gate that owns it closes it (here refusing a result that was never written), and then nothing
    // brings it back.
    expect(runBaton(dir, ["gate-out", "research", "1", "--session", session]).status).toBe(1);
    expect(existsSync(marker)).toBe(false);
    afterToolCall(dir, "post-tool-use", "ls");
    expect(existsSync(marker)).toBe(false);
  });

  it("outside a session an uncommitted edit stops the next write until adopted; nothing is lost", () => {
    const dir = oneTaskRepo();
    const edited = stateOf(dir).replace('"general"', '"meta"');
    writeFileSync(join(dir, "specs", "state.json"), edited);
    const todo = readFileSync(join(dir, "specs", "TODO.md"), "utf8");
    const refused = runBaton(dir, ["task", "add", "Another task", "-l", "general"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("specs/state.json: edited outside Baton since its last write");
    expect(refused.stderr).toContain("baton adopt");
    expect(stateOf(dir)).toBe(edited);
    expect(readFileSync(join(dir, "specs", "TODO.md"), "utf8")).toBe(todo);
    ok(dir, ["adopt"]);
    ok(dir, ["task", "add", "Another task", "-l", "general"]);
    expect(
      readJson(dir, "state.json").active_projects.map((t: { language: string }) => t.language),
    ).toContain("meta");
  });
});
