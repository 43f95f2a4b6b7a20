import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { activeTasks, git, ok, oneTaskRepo, specs, startedResearcher, tempDir } from "./helpers.js";

/**
 * What a run writes after its agent finished must be writable before the agent starts: refused at GATE IN,
 * nothing started, nothing paid. Permissions are the kernel's answer for the user running Baton, so Baton
 * runs as an ordinary user here (`nobody` through runuser when the tests run as root).
 */
function asOrdinaryUser(dir: string, args: string[]) {
  const home = tempDir("baton-home-");
  const root = process.getuid?.() === 0;
  if (root) execFileSync("chown", ["-R", "nobody", dir, home]);
  try {
    const env = {
      ...process.env,
      HOME: home,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "safe.directory",
      GIT_CONFIG_VALUE_0: "*",
    };
    const command = root ? ["runuser", "-u", "nobody", "--", "env", `HOME=${home}`] : [];
    const result = spawnSync(
      command[0] ?? process.execPath,
      [...command.slice(1), ...(root ? [process.execPath] : []), BATON_BIN, ...args],
      {
        cwd: dir,
        encoding: "utf8",
        env,
      },
    );
    return result;
  } finally {
    if (root) execFileSync("chown", ["-R", "root", dir, home]);
  }
}

const FOLDER = "1_study_the_lexer";

describe("GATE IN: every place the run writes later is writable now", () => {
  it.each([
    [".baton", "Baton's events, logs and check copies"],
    [".git/objects", "the commit"],
    ["specs/1_study_the_lexer", "the task's evidence and artifacts"],
  ])("refuses before any agent starts when %s is read-only", (place, purpose) => {
    const dir = oneTaskRepo();
    const script = startedResearcher(dir);
    mkdirSync(join(dir, place), { recursive: true });
    const mode = statSync(join(dir, place)).mode;
    chmodSync(join(dir, place), 0o555);
    try {
      const run = asOrdinaryUser(dir, ["research", "1", "--script", script]);
      expect(run.status, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain(`GATE_IN_REFUSED]: ${place}/ is not writable for this user`);
      expect(run.stdout).toContain(purpose);
    } finally {
      chmodSync(join(dir, place), mode);
    }
    expect(existsSync(specs(dir, FOLDER, "notes", "started.md")), "the agent started").toBe(false);
    expect(activeTasks(dir)[0]!.status).toBe("not_started");
    expect(existsSync(specs(dir, ".baton", "checkpoints", "1.json"))).toBe(false);
    // Made writable again, the same run goes through.
    expect(asOrdinaryUser(dir, ["research", "1", "--script", script]).status).toBe(0);
    expect(activeTasks(dir)[0]!.status).toBe("researched");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    ok(dir, ["status"]);
  });
});
