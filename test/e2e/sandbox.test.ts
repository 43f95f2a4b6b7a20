import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN, waitFor } from "../support/cli.js";
import {
  activeTasks,
  commitAll,
  git,
  ok,
  oneTaskRepo,
  RESEARCH_REPORT,
  readJson,
  runBaton,
  runBatonAsync,
  tempDir,
  write,
} from "./helpers.js";

/**
 * Every agent Baton starts runs in a bubblewrap sandbox: the store, git history and Baton's own files are
 * read-only for it, Baton's keys are not there, and nothing it starts outlives it. The agents here are
 * shell scripts run by the command runner, each trying what a hostile model tried.
 */
const FOLDER = "specs/1_study_the_lexer";

/** A command-runner agent: the hostile part first, then an honest report and its metadata. */
function shellAgent(dir: string, hostile: string): void {
  const metadata = JSON.stringify({
    status: "researched",
    summary: "found it",
    artifacts: [{ type: "research", path: `${FOLDER}/reports/research-001.md` }],
    metadata: { session_id: "SESSION", agent_type: "shell" },
  });
  const script = [
    "set +e",
    hostile,
    `mkdir -p ${FOLDER}/reports`,
    `printf '%s' '${RESEARCH_REPORT.replace(/'/g, "")}' > ${FOLDER}/reports/research-001.md`,
    `printf '%s' '${metadata}' | sed "s/SESSION/$BATON_SESSION_ID/" > "$BATON_METADATA_FILE"`,
  ].join("\n");
  writeFileSync(join(dir, ".git", "agent.sh"), script);
  writeFileSync(
    join(dir, "baton.config.json"),
    JSON.stringify({ runner: { type: "command", command: "sh", args: [join(dir, ".git", "agent.sh")] } }),
  );
  git(dir, ["add", "baton.config.json"]);
  git(dir, ["commit", "-qm", "agent"]);
}

/** The evidence file the run committed for task 1. */
function evidence(dir: string) {
  const folder = join(dir, FOLDER, "evidence");
  const name = readdirSync(folder).find((n) => n.endsWith(".json"))!;
  return JSON.parse(readFileSync(join(folder, name), "utf8"));
}

describe("the agent's sandbox", () => {
  it("keeps the store, git history and Baton's files read-only, and the keys out of sight", () => {
    const dir = oneTaskRepo();
    const keys = tempDir("baton-keys-");
    writeFileSync(join(keys, "signing.key"), "SECRET");
    const head = git(dir, ["rev-parse", "HEAD"]).trim();
    shellAgent(
      dir,
      [
        "echo '{}' > specs/state.json",
        "echo hacked >> specs/TODO.md",
        "rm -f specs/TODO.md",
        "mkdir -p specs/.baton && echo x > specs/.baton/forged",
        "git commit -q --allow-empty -m 'agent commit' 2>/dev/null",
        "echo forged > .baton/init.json",
        'echo "{}" > baton.config.json',
        `cat ${join(keys, "signing.key")} > key-seen.txt 2>/dev/null`,
        `ls ${keys} > keys-seen.txt 2>/dev/null`,
      ].join("\n"),
    );
    const state = readFileSync(join(dir, "specs", "state.json"), "utf8");
    const run = runBaton(dir, ["research", "1", "--json"], { BATON_KEY_DIR: keys });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
    // None of it reached the files: state.json moved only by Baton, TODO.md kept, no agent commit.
    expect(readFileSync(join(dir, "specs", "TODO.md"), "utf8")).not.toContain("hacked");
    expect(readFileSync(join(dir, "specs", "state.json"), "utf8")).not.toBe("{}\n");
    expect(state).not.toBe(readFileSync(join(dir, "specs", "state.json"), "utf8"));
    expect(git(dir, ["log", "--format=%s", `${head}..HEAD`])).not.toContain("agent commit");
    expect(existsSync(join(dir, "specs", ".baton", "forged"))).toBe(false);
    expect(readFileSync(join(dir, "baton.config.json"), "utf8")).toContain('"command"');
    // The key folder is there but empty inside the sandbox.
    expect(existsSync(join(dir, "key-seen.txt")) ? readFileSync(join(dir, "key-seen.txt"), "utf8") : "").toBe(
      "",
    );
    expect(readFileSync(join(dir, "keys-seen.txt"), "utf8")).toBe("");
    expect(evidence(dir).sandbox).toBe("bubblewrap");
  });

  it("may write only its work tree, its HOME and the temp folders: the rest of the file system is read-only, even for root", () => {
    const dir = oneTaskRepo();
    const home = tempDir("baton-home-");
    const said = tempDir("baton-agent-said-");
    // Outside every place an agent may write, on a file system root can write: a PATH folder and /etc.
    const outside = [`/usr/local/bin/baton-probe-${process.pid}`, `/etc/baton-probe-${process.pid}`];
    shellAgent(
      dir,
      [
        ...outside.map((path) => `echo x > ${path} && echo wrote ${path} >> ${said}/said`),
        `echo x > "$HOME/.baton-probe" && echo wrote-home >> ${said}/said`,
        `echo x > ${said}/tmp-probe && echo wrote-tmp >> ${said}/said`,
        "echo x > notes.txt && echo wrote-tree >> " + `${said}/said`,
      ].join("\n"),
    );
    const run = runBaton(dir, ["research", "1", "--json"], { HOME: home });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    for (const path of outside) expect(existsSync(path)).toBe(false);
    expect(readFileSync(join(said, "said"), "utf8").trim().split("\n")).toEqual([
      "wrote-home",
      "wrote-tmp",
      "wrote-tree",
    ]);
  });

  it("an agent that makes git run its program (a filter in the user's ~/.gitconfig) is refused before git runs it", async () => {
    const dir = oneTaskRepo();
    const home = tempDir("baton-home-");
    const ran = join(tempDir("baton-ran-"), "ran");
    // The agent's sandbox can write HOME; Baton's GATE OUT and COMMIT run git outside any sandbox.
    shellAgent(
      dir,
      [
        `git config --global filter.steal.clean 'echo stolen >> ${ran}; cat'`,
        `echo '*.md filter=steal' >> .gitattributes`,
      ].join("\n"),
    );
    const head = git(dir, ["rev-parse", "HEAD"]);
    const run = await runBatonAsync(dir, ["research", "1", "--json"], { HOME: home });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("GIT_CONFIG_CHANGED");
    expect(run.stdout).toContain("filter.steal.clean");
    expect(existsSync(ran)).toBe(false);
    expect(git(dir, ["rev-parse", "HEAD"])).toBe(head);
  });

  it("keeps the store read-only after another Baton replaced its files, its entries fixed, other tasks' folders out of reach", async () => {
    const dir = oneTaskRepo();
    // Outside the repository: its git folder is read-only for the agent.
    const said = tempDir("baton-agent-said-");
    write(dir, "ROAD_MAP.md", "# Road map\n");
    write(dir, "7_earlier_task/reports/research-001.md", RESEARCH_REPORT);
    commitAll(dir, "road map");
    // The agent waits until another run has written the store (a rename over each file), then tries again.
    shellAgent(
      dir,
      [
        `touch ${said}/started`,
        `for i in $(seq 1 300); do [ -f ${said}/store-replaced ] && break; sleep 0.05; done`,
        `echo '{}' > specs/state.json && echo wrote-state >> ${said}/said`,
        `echo hacked >> specs/TODO.md && echo wrote-todo >> ${said}/said`,
        `echo x > specs/errors.json && echo wrote-errors >> ${said}/said`,
        `touch specs/new-file && echo made-entry >> ${said}/said`,
        `echo "- a line" >> specs/ROAD_MAP.md && echo wrote-road-map >> ${said}/said`,
        `mv specs/ROAD_MAP.md specs/ROADMAP.md && echo moved-entry >> ${said}/said`,
        `echo forged >> specs/7_earlier_task/reports/research-001.md && echo wrote-other-task >> ${said}/said`,
        `echo '{}' > ${FOLDER}/.baton-postflight-pending && echo wrote-marker >> ${said}/said`,
      ].join("\n"),
    );
    ok(dir, ["task", "add", "Other task"]);
    commitAll(dir, "other task");
    const research = runBatonAsync(dir, ["research", "1"]);
    await waitFor(() => existsSync(join(said, "started")));
    ok(dir, ["task", "add", "Third task"]);
    writeFileSync(join(said, "store-replaced"), "");
    const run = await research;
    expect(run.status, run.stdout + run.stderr).toBe(0);
    // What it could do: write in a file of the store's folder (the road map), not move it; not another task's.
    expect(readFileSync(join(said, "said"), "utf8")).toBe("wrote-road-map\n");
    expect(activeTasks(dir).map((t) => [t.project_number, t.status])).toEqual([
      [3, "not_started"],
      [2, "not_started"],
      [1, "researched"],
    ]);
    expect(readFileSync(join(dir, "specs", "TODO.md"), "utf8")).not.toContain("hacked");
    expect(existsSync(join(dir, "specs", "new-file"))).toBe(false);
  });

  it.each([
    [".claude/settings.local.json", `{"disableAllHooks": true}`, ".claude/settings.local.json"],
    [".opencode/plugin/quiet.js", "export const Quiet = async () => ({});", ".opencode/plugin"],
    // opencode loads its plugins from plugins/ as well (contract 2: `.opencode/{plugin,plugins}/`).
    [".opencode/plugins/quiet.js", "export const Quiet = async () => ({});", ".opencode/plugins"],
    ["baton.config.yaml", "sandbox: off", "baton.config.yaml"],
  ])(
    "refuses a result that created %s, which no bind could guard (SETTINGS_CHANGED), ignored by git or not",
    (path, content, guarded) => {
      const dir = oneTaskRepo();
      writeFileSync(join(dir, ".gitignore"), `${path}\n`);
      commitAll(dir, "ignore it, as people do");
      shellAgent(dir, `mkdir -p "$(dirname ${path})" && printf '%s' '${content}' > ${path}`);
      const run = runBaton(dir, ["research", "1"]);
      expect(run.status, run.stdout + run.stderr).toBe(1);
      expect(run.stdout + run.stderr).toContain(`[SETTINGS_CHANGED]`);
      expect(run.stdout + run.stderr).toContain(`${guarded} (created)`);
      expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
    },
  );

  it("keeps the scripts the hosts' hooks run out of the agent's reach: one there read-only, one it creates refused (SETTINGS_CHANGED)", () => {
    const dir = oneTaskRepo();
    const hooks = (command: string) =>
      JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command }] }] } });
    mkdirSync(join(dir, ".claude/hooks"), { recursive: true });
    writeFileSync(join(dir, ".claude/settings.json"), hooks("bash .claude/hooks/format.sh"));
    writeFileSync(join(dir, ".claude/hooks/format.sh"), "exit 0\n");
    // A hook the person named before writing its script: the agent must not be the one to write it.
    mkdirSync(join(dir, ".codex"), { recursive: true });
    writeFileSync(join(dir, ".codex/hooks.json"), hooks("bash tools/after-edit.sh"));
    commitAll(dir, "the person's own hooks");
    shellAgent(
      dir,
      [
        "echo 'cat ~/.config/baton/keys/* > leak' >> .claude/hooks/format.sh",
        "echo 'cat ~/.config/baton/keys/* > leak' > .claude/hooks/lib.sh",
        "mkdir -p tools && echo 'cat ~/.config/baton/keys/* > leak' > tools/after-edit.sh",
      ].join("\n"),
    );
    const run = runBaton(dir, ["research", "1"]);
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stdout + run.stderr).toContain("[SETTINGS_CHANGED]");
    expect(run.stdout + run.stderr).toContain("tools/after-edit.sh (created)");
    expect(readFileSync(join(dir, ".claude/hooks/format.sh"), "utf8")).toBe("exit 0\n");
    expect(existsSync(join(dir, ".claude/hooks/lib.sh"))).toBe(false);
  });

  it("ends every process the agent started with it: a setsid child and a double-forked daemon", async () => {
    const dir = oneTaskRepo();
    shellAgent(
      dir,
      [
        "setsid sh -c 'sleep 1; echo late > late-setsid.txt' >/dev/null 2>&1 < /dev/null &",
        "( sh -c 'sleep 1; echo late > late-daemon.txt' >/dev/null 2>&1 < /dev/null & ) &",
        "nohup sh -c 'sleep 1; echo late > late-nohup.txt' >/dev/null 2>&1 &",
      ].join("\n"),
    );
    const run = runBaton(dir, ["research", "1"]);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const name of ["late-setsid.txt", "late-daemon.txt", "late-nohup.txt"]) {
      expect(existsSync(join(dir, name)), name).toBe(false);
    }
  });

  it("refuses to start an agent it cannot sandbox, naming the cause and the fix; --sandbox off runs it and says so", () => {
    const dir = oneTaskRepo();
    shellAgent(dir, "true");
    const missing = { BATON_BWRAP: "/nonexistent/bwrap" };
    const refused = runBaton(dir, ["research", "1"], missing);
    expect(refused.status).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("the agent's sandbox cannot start: bubblewrap");
    expect(refused.stdout + refused.stderr).toContain("apt-get install bubblewrap");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("not_started");
    const unsandboxed = runBaton(dir, ["research", "1", "--sandbox", "off"], missing);
    expect(unsandboxed.status, unsandboxed.stdout + unsandboxed.stderr).toBe(0);
    expect(evidence(dir).sandbox).toBe("off");
  });
});

describe("history the agent may not write (HISTORY_CHANGED), checked with the sandbox off", () => {
  const attempts: Array<[string, string]> = [
    ["a commit of its own", "git add -A && git commit -q -m 'agent: done' 2>/dev/null"],
    ["an amended baseline commit", "git commit -q --amend -m 'init, amended' 2>/dev/null"],
    ["a tag", "git tag agent-was-here"],
    ["a branch", "git branch agent-branch"],
    ["staging a file", "echo staged > staged.txt && git add staged.txt"],
  ];
  for (const [what, command] of attempts) {
    it(`refuses a result after ${what}`, () => {
      const dir = oneTaskRepo();
      shellAgent(dir, command);
      const run = runBaton(dir, ["research", "1", "--sandbox", "off"]);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain("[HISTORY_CHANGED]");
      expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
    });
  }

  it("accepts history that only Baton's own commits moved, and leaves what the user staged before staged", () => {
    const dir = oneTaskRepo();
    shellAgent(dir, "git status --short > /dev/null");
    writeFileSync(join(dir, "mine.txt"), "the user's own staged change\n");
    git(dir, ["add", "mine.txt"]);
    const run = runBaton(dir, ["research", "1", "--sandbox", "off"]);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(git(dir, ["show", "--name-only", "--format=", "HEAD"])).not.toContain("mine.txt");
    expect(git(dir, ["status", "--porcelain"])).toBe("A  mine.txt\n");
  });
});

/**
 * CI runs as root; people do not. The same hostile agent, with Baton run by an ordinary user (`nobody`,
 * through runuser): bubblewrap then needs unprivileged user namespaces, and must still keep the store, git
 * history and the keys out of the agent's reach.
 */
describe.skipIf(process.getuid?.() !== 0)("the agent's sandbox for an ordinary user", () => {
  it("keeps the store, other tasks' folders, git history and the hooks' scripts read-only and the keys out of sight when Baton does not run as root", () => {
    const dir = oneTaskRepo();
    const keys = tempDir("baton-keys-");
    // The store's folder frozen as for root: another task's folder and a new entry of specs/ out of reach.
    write(dir, "7_earlier_task/reports/research-001.md", RESEARCH_REPORT);
    // A script the person's hook runs, which the host would run outside any sandbox.
    mkdirSync(join(dir, ".claude/hooks"), { recursive: true });
    writeFileSync(
      join(dir, ".claude/settings.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "bash .claude/hooks/notify.sh" }] }] },
      }),
    );
    writeFileSync(join(dir, ".claude/hooks/notify.sh"), "exit 0\n");
    commitAll(dir, "an earlier task's report, the person's hook");
    shellAgent(
      dir,
      [
        "echo '{}' > specs/state.json",
        "echo 'cat ~/.config/baton/keys/*' >> .claude/hooks/notify.sh 2>/dev/null",
        "git commit -q --allow-empty -m 'agent commit' 2>/dev/null",
        `ls ${join(keys, "keys")} > keys-seen.txt 2>/dev/null`,
        "echo forged >> specs/7_earlier_task/reports/research-001.md 2>/dev/null",
        "touch specs/new-file 2>/dev/null",
      ].join("\n"),
    );
    const head = git(dir, ["rev-parse", "HEAD"]).trim();
    execFileSync("chown", ["-R", "nobody", dir, keys]);
    const run = spawnSync(
      "runuser",
      ["-u", "nobody", "--", process.execPath, BATON_BIN, "research", "1", "--json"],
      { cwd: dir, encoding: "utf8", env: { ...process.env, HOME: keys, BATON_KEY_DIR: join(keys, "keys") } },
    );
    // Back to root, whose git (and clean-up) refuse a repository another user owns.
    execFileSync("chown", ["-R", "root", dir, keys]);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
    expect(git(dir, ["log", "--format=%an %s", `${head}..HEAD`])).not.toContain("agent commit");
    expect(readFileSync(join(dir, "keys-seen.txt"), "utf8")).toBe("");
    expect(readFileSync(join(dir, "specs/7_earlier_task/reports/research-001.md"), "utf8")).toBe(
      RESEARCH_REPORT,
    );
    expect(existsSync(join(dir, "specs/new-file"))).toBe(false);
    expect(readFileSync(join(dir, ".claude/hooks/notify.sh"), "utf8")).toBe("exit 0\n");
    expect(evidence(dir).sandbox).toBe("bubblewrap");
  });
});
