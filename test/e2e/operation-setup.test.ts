import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resealFile, specsPaths } from "../../src/state/index.js";
import { GOOD_RESEARCH, git, ok, oneTaskRepo, readJson, runBaton, scriptFile } from "./helpers.js";

/**
 * One operation setup for every path (headless run, in-session gates, --dry-run): what the dry run
 * says is what the run does, and the run's COMMIT happens with the store still locked.
 */
const script = (dir: string) => scriptFile(dir, "good", GOOD_RESEARCH);
const taskRepo = () => oneTaskRepo();

describe("one operation setup", () => {
  it("after an in-session gate-in, --dry-run --force says what research --force then does", () => {
    const dir = taskRepo();
    ok(dir, ["gate-in", "research", "1"]);
    const refusedDry = runBaton(dir, ["research", "1", "--dry-run", "--script", script(dir)]);
    expect(refusedDry.status).toBe(1);
    expect(refusedDry.stdout).toContain("open in-session checkpoint");
    expect(runBaton(dir, ["research", "1", "--script", script(dir)]).status).toBe(1);

    const dry = runBaton(dir, ["research", "1", "--dry-run", "--force", "--script", script(dir)]);
    expect(dry.stdout).toContain("GATE IN:   allowed: researching → researching");
    expect(dry.status).toBe(0);
    const real = runBaton(dir, ["research", "1", "--force", "--script", script(dir), "--json"]);
    expect(JSON.parse(real.stdout).result).toMatchObject({ ok: true });
  });

  it("--dry-run names and validates the runner as the real run would", () => {
    const dir = taskRepo();
    const bogus = runBaton(dir, ["research", "1", "--dry-run", "--runner", "bogus"]);
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toContain('unknown runner "bogus"');
    const real = runBaton(dir, ["research", "1", "--runner", "bogus"]);
    expect(real.status).toBe(2);
    expect(real.stderr).toBe(bogus.stderr);
    const dry = runBaton(dir, ["research", "1", "--dry-run", "--script", "agent.json"]);
    expect(dry.stdout).toContain("  runner:    scripted (agent.json)");
    expect(runBaton(dir, ["research", "1", "--dry-run"]).stdout).toContain("  runner:    claude (");
    // Every agent CLI is named with the binary the real run would start, or why there is none.
    for (const kind of ["claude", "opencode", "codex"]) {
      const shown = runBaton(dir, ["research", "1", "--dry-run", "--runner", kind, "--json"]);
      expect(shown.status, shown.stderr).toBe(0);
      const runner = JSON.parse(shown.stdout).runner;
      expect(runner.kind).toBe(kind);
      expect(runner.detail).toMatch(new RegExp(`/${kind}[^/]*$|^no binary: .*${kind}`));
    }
    // A runner with nothing to run without its settings is refused, naming what to add.
    for (const kind of ["command", "scripted"]) {
      const bare = runBaton(dir, ["research", "1", "--dry-run", "--runner", kind]);
      expect(bare.status).toBe(2);
      expect(bare.stderr).toContain(`--runner ${kind} needs its settings in baton.config.json`);
    }
    expect(runBaton(dir, ["research", "1", "--dry-run", "--concurrency", "0"]).status).toBe(2);
  });

  it("--dry-run over a dead run's checkpoint says the run resolves it first, as the run then does", () => {
    const dir = taskRepo();
    // A headless checkpoint whose process is gone (pid 2^22 + 1 is never a live pid here).
    ok(dir, ["gate-in", "research", "1"]);
    const path = join(dir, "specs/.baton/checkpoints/1.json");
    const checkpoint = readJson(dir, ".baton/checkpoints/1.json");
    delete checkpoint.mode;
    checkpoint.pid = 4_194_305;
    writeFileSync(path, JSON.stringify(checkpoint));
    // As if a headless Baton run had written it: a hand edit of a checkpoint would be undone from the seal.
    resealFile(specsPaths(join(dir, "specs")), path);
    const dry = runBaton(dir, ["research", "1", "--dry-run", "--script", script(dir)]);
    expect(dry.stdout).toMatch(
      /first: +session sess_\d+_[0-9a-f]+ \(research\) died; the run resolves it first/,
    );
    expect(dry.stdout).toContain("GATE IN:   allowed: not_started → researching");
    expect(dry.status).toBe(0);
    const real = runBaton(dir, ["research", "1", "--script", script(dir), "--json"]);
    const report = JSON.parse(real.stdout);
    expect(report.recovered).toMatchObject({ action: "rolled_back" });
    expect(report.result).toMatchObject({ ok: true });
  });

  it("a commit hook that would write the store during COMMIT never runs: Baton's git runs no hook, and nothing lands under the Session trailer", () => {
    const dir = taskRepo();
    writeFileSync(join(dir, "baton.config.json"), JSON.stringify({ lockTimeoutMs: 300 }));
    git(dir, ["add", "baton.config.json"]);
    git(dir, ["commit", "-qm", "config"]);
    // The pre-commit hook would be a second writer, unsandboxed, adding a task while the COMMIT runs.
    const hook = join(dir, ".git", "hooks", "pre-commit");
    mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
    writeFileSync(
      hook,
      `#!/bin/sh\n"${process.execPath}" "${join(import.meta.dirname, "../../bin/baton.js")}" task add "Written during the commit" -l general > "${join(dir, "hook.out")}" 2>&1\necho "exit $?" >> "${join(dir, "hook.out")}"\nexit 0\n`,
    );
    chmodSync(hook, 0o755);
    const result = runBaton(dir, ["research", "1", "--script", script(dir), "--json"]);
    expect(JSON.parse(result.stdout).result).toMatchObject({ ok: true, committed: true });
    expect(existsSync(join(dir, "hook.out"))).toBe(false);
    expect(git(dir, ["show", "HEAD", "--", "specs/state.json"])).not.toContain("written_during_the_commit");
  });
});
