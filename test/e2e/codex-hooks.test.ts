import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { locateCodex } from "../../src/runners/codex.js";
import { runProcess } from "../../src/shared/process.js";
import { startFakeResponsesApi } from "../../src/testing/fake-responses-api.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { BATON_BIN } from "../support/cli.js";
import { ok, oneTaskRepo, runBaton } from "./helpers.js";

/**
 * Codex CLI's hooks take Claude Code's shape (opencode contract 11.4), so Baton's own `baton hook` commands
 * guard a live Codex session too: `baton init --host codex` writes them to `.codex/hooks.json`, and the real
 * binary runs them against a model that tries to overwrite the task store.
 */
const located = locateCodex({ baseDir: process.cwd(), pathValue: "" });
requireUnderCi("the Codex CLI", located.path === null ? located.message : null);

let cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe.skipIf(located.path === null)("Baton's hooks in a Codex session (real binary)", () => {
  it("deny a shell write to specs/state.json; Codex tells the model why and the store is untouched", async () => {
    const api = await startFakeResponsesApi([
      { call: { name: "exec_command", arguments: { cmd: "echo '{}' > specs/state.json" } } },
      { message: "The write was refused." },
    ]);
    cleanups.push(() => api.close());
    const home = mkdtempSync(join(tmpdir(), "baton-codex-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const dir = oneTaskRepo();
    ok(dir, ["init", "--host", "codex", "--bin", `node ${BATON_BIN}`]);
    const installed = JSON.parse(readFileSync(join(dir, ".codex", "hooks.json"), "utf8"));
    // Baton's forwarder to the repository's resident hook server (SessionStart starts it and publishes its
    // port), which decides in-process whenever the server cannot answer.
    const forwarder = join(BATON_BIN, "..", "baton-hook");
    expect(installed.hooks.PreToolUse).toEqual([
      { matcher: "*", hooks: [{ type: "command", command: `${forwarder} pre-tool-use` }] },
    ]);
    expect(installed.hooks.SessionStart[0].hooks[0].command).toBe(`node ${BATON_BIN} hook session-start`);
    cleanups.push(async () => {
      try {
        const port = readFileSync(join(dir, ".baton", "serve.port"), "utf8").trim();
        const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { pid: number };
        process.kill(health.pid, "SIGTERM");
      } catch {
        // Codex started no server: every call was decided in-process
      }
    });
    const before = readFileSync(join(dir, "specs", "state.json"), "utf8");
    // Asynchronously: the fake API answers from this process.
    const run = await runProcess({
      command: process.execPath,
      args: [
        located.path!,
        "exec",
        "--json",
        "--skip-git-repo-check",
        // Project hooks run only in a trusted project, each after a trust review: the two flags Baton's hooks need.
        "--trust",
        "--dangerously-bypass-hook-trust",
        "-s",
        "danger-full-access",
        "-m",
        "fake-model",
        "-c",
        "model_provider=fake",
        "-c",
        `model_providers.fake={name="fake",base_url="${api.url}/v1",wire_api="responses",env_key="FAKE_KEY"}`,
        "-c",
        "analytics.enabled=false",
        "-c",
        "check_for_update_on_startup=false",
        "-c",
        "feedback.enabled=false",
        "Overwrite the task store.",
      ],
      cwd: dir,
      env: { ...process.env, HOME: home, CODEX_HOME: home, FAKE_KEY: "sk-test" },
      timeoutMs: 60_000,
    });
    expect(run.ok, run.stderr).toBe(true);
    expect(readFileSync(join(dir, "specs", "state.json"), "utf8")).toBe(before);
    const told = JSON.stringify(api.requests.at(-1)?.body["input"]);
    expect(told).toContain("blocked by PreToolUse hook");
    expect(told).toContain("specs/state.json is written only by Baton");
    expect(api.problems()).toEqual([]);
    // Remembered by a plain re-run, and removed by uninstall with the folder Baton created for it.
    expect(ok(dir, ["init"]).stdout).toContain("up to date");
    ok(dir, ["init", "--uninstall"]);
    expect(existsSync(join(dir, ".codex"))).toBe(false);
    expect(runBaton(dir, ["init", "--host", "cursor"]).stderr).toContain(
      '--host must be "claude", "codex" or "opencode"',
    );
  }, 90_000);
});
