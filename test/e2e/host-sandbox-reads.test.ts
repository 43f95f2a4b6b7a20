import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_FILE_NAMES, HOST_SETTINGS_FILES } from "../../src/shared/baton-paths.js";
import { BATON_BIN } from "../support/cli.js";
import { commitAll, ok, read, repo, write } from "./helpers.js";

/**
 * Claude Code's sandbox binds `/dev/null` over every protected path that does not exist, so that a command
 * cannot create it. A Baton command run inside it (any form of gate-out the model types, `baton task list`,
 * a `baton` on PATH) sees each as a file: every config name at once, an errors log, an archive folder. Here a
 * link to /dev/null stands in for the bind: the same device node where nothing exists.
 */
function sandboxedView(dir: string, paths: readonly string[]): void {
  for (const path of paths) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    symlinkSync("/dev/null", join(dir, path));
  }
}

describe("Baton inside a host sandbox: a missing protected path is missing", () => {
  it("reads the config, the store and the tasks as they are, with every absent protected path bound", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
    write(dir, "baton.config.json", `${JSON.stringify({ defaultRunner: "script" })}\n`);
    commitAll(dir, "a task and a config");
    const absent = [
      ...CONFIG_FILE_NAMES.filter((name) => name !== "baton.config.json"),
      ...HOST_SETTINGS_FILES,
      "specs/errors.json",
      "specs/archive",
    ];
    sandboxedView(dir, absent);
    expect(ok(dir, ["task", "list"]).stdout).toContain("Study the lexer");
    expect(ok(dir, ["task", "show", "1"]).stdout).toContain("Study the lexer");
    expect(ok(dir, ["status"]).stdout).not.toMatch(/exist/);
    expect(ok(dir, ["errors"]).status).toBe(0);
    const config = ok(dir, ["doctor", "--json"]);
    expect(config.stdout).not.toContain("both baton.config");
  });

  it("with no config at all, none of the bound names is taken for one", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Study the lexer"]);
    sandboxedView(dir, CONFIG_FILE_NAMES);
    const listed = ok(dir, ["task", "list"]);
    expect(listed.stdout).toContain("Study the lexer");
    expect(listed.stderr).not.toMatch(/baton\.config/);
  });
});

describe("Baton inside a host sandbox: a write it cannot make is named", () => {
  it("a store write refused by the sandbox says where it ran and how to run it instead", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Study the lexer"]);
    commitAll(dir, "a task");
    const before = read(dir, "state.json");
    // The store read-only as the sandbox's binds make it, in a command the sandbox marks as its own.
    const run = spawnSync(
      "bwrap",
      [
        "--dev-bind",
        "/",
        "/",
        "--ro-bind",
        join(dir, "specs"),
        join(dir, "specs"),
        process.execPath,
        BATON_BIN,
        "task",
        "add",
        "Another",
      ],
      { cwd: dir, encoding: "utf8", env: { ...process.env, SANDBOX_RUNTIME: "1" } },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("inside Claude Code's sandbox");
    expect(run.stderr).toContain("exactly as printed, alone");
    expect(read(dir, "state.json")).toBe(before);
  });
});
