import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { generatedRepo, ok, repo, runBaton } from "./helpers.js";

describe("output through a pipe", () => {
  it("delivers every byte of a large --json listing to a slow reader", () => {
    const { dir, gen } = generatedRepo({ active: 1500, archived: 0 });
    // The reader starts late, so the pipe fills up: output must survive process exit.
    const out = execFileSync(
      "sh",
      ["-c", `"${process.execPath}" "${BATON_BIN}" task list --json | (sleep 0.4; cat)`],
      {
        cwd: dir,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    expect(out.length).toBeGreaterThan(256 * 1024);
    const tasks = JSON.parse(out) as Array<{ number: number }>;
    expect(tasks.map((t) => t.number)).toEqual(gen.activeNumbers);
  });
});

describe("terminal escapes from repository data", () => {
  it("are shown, never obeyed, in every command's text and error", () => {
    const dir = repo();
    const hostile = "Fix \u001b[2J\u001b]0;pwned\u0007 the \u009b31mparser\rFAKE";
    ok(dir, ["task", "add", hostile, "-l", "general"]);
    const outputs = [
      runBaton(dir, ["task", "list"]),
      runBaton(dir, ["task", "show", "1"]),
      runBaton(dir, ["status"]),
      runBaton(dir, ["doctor"]),
      runBaton(dir, ["task", "status", "1", "\u001b[31mred"]),
      runBaton(dir, ["research", "1", "--dry-run"]),
    ];
    for (const result of outputs) {
      const text = result.stdout + result.stderr;
      expect(text).not.toMatch(/[\u001b\u0007\u009b\r]/);
    }
    expect(outputs[1]!.stdout).toContain("Fix \\x1b[2J\\x1b]0;pwned\\x07 the \\x9b31mparser");
  });
});
