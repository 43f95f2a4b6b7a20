import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordingOptions } from "../testing/run-request.js";
import { runAgentProcess } from "./agent-process.js";
import type { SandboxPolicy } from "./sandbox.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-sandbox-run-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Another Baton in the same repository replaces the store's files by rename and deletes others, as fast
 * as it can: each of the paths a sandbox binds one by one stops being the file bubblewrap found.
 */
function replaceLoop(files: string[]): ChildProcess {
  const script = `
    const fs = require("fs");
    const files = ${JSON.stringify(files)};
    for (let i = 0; ; i++) for (const file of files) {
      try {
        fs.writeFileSync(file + ".tmp", String(i));
        fs.renameSync(file + ".tmp", file);
        if (i % 7 === 0 && file.endsWith("errors.json")) fs.rmSync(file);
      } catch {}
    }`;
  return spawn(process.execPath, ["-e", script], { stdio: "ignore" });
}

const agent = (script: string) => ({ command: "sh", args: ["-c", script], cwd: dir, env: process.env });

describe("starting an agent's sandbox", () => {
  it("starts every agent while the files it protects are replaced and deleted under it", async () => {
    const specs = join(dir, "race", "specs");
    mkdirSync(specs, { recursive: true });
    const files = ["state.json", "TODO.md", "errors.json"].map((name) => join(specs, name));
    for (const file of files) writeFileSync(file, "{}");
    const policy: SandboxPolicy = { readOnly: files, hidden: [] };
    const writer = replaceLoop(files);
    try {
      const outcomes = [];
      for (let run = 0; run < 40; run++)
        outcomes.push(
          await runAgentProcess("command", agent("echo ran"), { ...recordingOptions(), sandbox: policy }),
        );
      const failed = outcomes.filter((o) => !o.ok).map((o) => o.message);
      expect(failed).toEqual([]);
      expect(outcomes.every((o) => o.output.trim() === "ran")).toBe(true);
    } finally {
      writer.kill("SIGKILL");
    }
  }, 120_000);

  it("never starts an agent twice: one that ran and failed as a failed setup would is its own failure", async () => {
    const counter = join(dir, "count");
    writeFileSync(counter, "");
    const outcome = await runAgentProcess(
      "command",
      agent(
        `echo x >> ${counter}; echo "bwrap: Can't bind mount /a on /b: No such file or directory" >&2; exit 1`,
      ),
      { ...recordingOptions(), sandbox: { readOnly: [], hidden: [] } },
    );
    expect(readFileSync(counter, "utf8")).toBe("x\n");
    expect(outcome).toMatchObject({ ok: false, reason: "exit", exitCode: 1 });
  });

  it("reports a setup that keeps failing as an agent that could not start, with bubblewrap's words", async () => {
    const file = join(dir, "not-a-folder");
    writeFileSync(file, "");
    const counter = join(dir, "never");
    const options = recordingOptions();
    // A tmpfs cannot be mounted over a file: the setup fails every time, and the agent never runs.
    const outcome = await runAgentProcess("command", agent(`echo x >> ${counter}`), {
      ...options,
      sandbox: { readOnly: [], hidden: [file] },
    });
    expect(outcome).toMatchObject({ ok: false, reason: "spawn_failed" });
    expect(outcome.ok ? "" : outcome.message).toMatch(
      /^the agent's sandbox could not be set up \(10 attempts\): bwrap: .*not-a-folder/,
    );
    expect(() => readFileSync(counter)).toThrow();
  });
});
