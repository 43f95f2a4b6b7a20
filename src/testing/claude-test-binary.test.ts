import { execFileSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { groupAlive } from "../shared/process-group.js";
import {
  ClaudeBinaryNotFoundError,
  claudeOfflineEnv,
  findClaudeBinary,
  locateClaudeBinary,
  parseJsonLines,
  platformPackages,
  runClaude,
} from "./claude-test-binary.js";

describe("locating the bundled binary", () => {
  test("platform packages follow the SDK's order", () => {
    expect(platformPackages("linux", "x64", false)).toEqual([
      "@anthropic-ai/claude-agent-sdk-linux-x64",
      "@anthropic-ai/claude-agent-sdk-linux-x64-musl",
    ]);
    expect(platformPackages("linux", "arm64", true)[0]).toBe(
      "@anthropic-ai/claude-agent-sdk-linux-arm64-musl",
    );
    expect(platformPackages("darwin", "arm64")).toEqual(["@anthropic-ai/claude-agent-sdk-darwin-arm64"]);
  });

  test("finds the binary of the installed SDK", () => {
    const path = findClaudeBinary();
    expect(path).toMatch(/claude-agent-sdk-[a-z0-9-]+\/claude(\.exe)?$/);
    expect(execFileSync(path, ["--version"], { encoding: "utf8" })).toMatch(/^2\.1\.330 /);
  });

  test("a missing platform package gives a reason naming what was tried", () => {
    const found = locateClaudeBinary(["@anthropic-ai/claude-agent-sdk-plan9-x64"]);
    expect(found.path).toBeNull();
    expect(found).toMatchObject({
      reason: expect.stringContaining("@anthropic-ai/claude-agent-sdk-plan9-x64/claude: MODULE_NOT_FOUND"),
    });
    expect(new ClaudeBinaryNotFoundError("x").name).toBe("ClaudeBinaryNotFoundError");
  });
});

test("the offline environment points at the fake, drops inherited Claude and Anthropic settings, and has its own home", () => {
  const env = claudeOfflineEnv("http://127.0.0.1:9", "/tmp/cfg", {
    PATH: "/usr/bin",
    HOME: "/root",
    ANTHROPIC_AUTH_TOKEN: "real-token",
    ANTHROPIC_MODEL: "opus",
    CLAUDECODE: "1",
    CLAUDE_CODE_ENTRYPOINT: "cli",
    NO_PROXY: "internal",
    BASH_ENV: "/root/.bash_env",
    ENV: "/root/.shrc",
  });
  expect(env).toEqual({
    PATH: "/usr/bin",
    HOME: "/tmp/cfg/home",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    ANTHROPIC_API_KEY: "sk-test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    IS_SANDBOX: "1",
    CLAUDE_CONFIG_DIR: "/tmp/cfg",
    CLAUDE_CODE_TMPDIR: "/tmp/cfg/tmp",
    TMPDIR: "/tmp/cfg/tmp",
    NO_PROXY: "internal,127.0.0.1,localhost",
    no_proxy: "internal,127.0.0.1,localhost",
  });
});

test("parseJsonLines skips lines that are not JSON objects", () => {
  expect(parseJsonLines('{"a":1}\nnoise\n{"b":2}\n{"cut')).toEqual([{ a: 1 }, { b: 2 }]);
});

test("a run past its timeout is killed with the processes it started", async () => {
  const run = await runClaude({
    binary: "/bin/sh",
    // The background sleep keeps stdout open: only killing the whole group ends the run.
    args: ["-c", "echo '{\"started\":true}'; sleep 30 & sleep 30"],
    cwd: process.cwd(),
    env: { PATH: process.env["PATH"] ?? "" },
    timeoutMs: 300,
  });
  expect(run).toMatchObject({ timedOut: true, signal: "SIGTERM", messages: [{ started: true }] });
  // The background sleep was in the same group: nothing of the group survives the timeout.
  expect(groupAlive(run.pid)).toBe(false);
});
