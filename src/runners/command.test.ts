import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../shared/index.js";
import { liveGroupMembers } from "../shared/process-group.js";
import { recordingOptions, sampleRunRequest } from "../testing/run-request.js";
import { CommandRunner, commandInvocation, parseCommandTemplate } from "./command.js";
import { delegationEnv } from "./context.js";
import { createRunner } from "./factory.js";
import { PrivateFiles } from "./private-file.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-command-")));
const files = new PrivateFiles();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  files.remove();
});
const request = sampleRunRequest(dir);
const node = (script: string, ...rest: string[]) => ({
  command: process.execPath,
  args: ["--input-type=module", "-e", script, "--", ...rest],
});

describe("command runner", () => {
  it("passes the delegation context in BATON_* variables", async () => {
    const runner = new CommandRunner(
      node(
        "const e = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BATON_')));" +
          "console.log(JSON.stringify(e))",
      ),
    );
    const outcome = await runner.run(
      { ...request, agent: { name: "general-research-agent" } },
      recordingOptions(),
    );
    expect(outcome.ok).toBe(true);
    const env = JSON.parse(outcome.output);
    expect(env).toEqual({
      BATON_SESSION_ID: "sess_1773703759_f69482",
      BATON_OPERATION: "research",
      BATON_TASK_NUMBER: "12",
      BATON_TASK_NAME: "add_widget",
      BATON_TASK_LANGUAGE: "general",
      BATON_TASK_FOLDER: "specs/12_add_widget",
      BATON_METADATA_FILE: "specs/12_add_widget/.return-meta.json",
      BATON_ARTIFACT_PATH: "specs/12_add_widget/reports/research-001.md",
      BATON_DELEGATION_DEPTH: "1",
      BATON_DELEGATION_PATH: '["orchestrator","research","general-research-agent"]',
      BATON_FOCUS: "edge cases first",
      BATON_REPO_ROOT: dir,
      BATON_CONTEXT: JSON.stringify(request.context),
      BATON_CONTEXT_FILE: expect.stringMatching(/\/baton-agent-[^/]+\/baton_context\.json$/),
      BATON_AGENT: '{"name":"general-research-agent"}',
      BATON_AGENT_FILE: expect.stringMatching(/\/baton-agent-[^/]+\/baton_agent\.json$/),
    });
    expect(JSON.parse(env.BATON_CONTEXT)).toEqual(request.context);
  });

  it("a context or an agent too long for one environment variable travels in its file only", async () => {
    const runner = new CommandRunner(
      node(
        "const fs = await import('node:fs'); const e = process.env;" +
          "console.log(JSON.stringify({ inline: 'BATON_AGENT' in e, context: 'BATON_CONTEXT' in e," +
          " agent: JSON.parse(fs.readFileSync(e.BATON_AGENT_FILE, 'utf8')).systemPrompt.length," +
          " file: e.BATON_AGENT_FILE }))",
      ),
    );
    const body = "House style. ".repeat(20_000);
    const description = "A long description. ".repeat(8_000);
    const long = {
      ...request,
      context: { ...request.context, task_context: { ...request.context.task_context, description } },
      agent: { name: "general-research-agent", systemPrompt: body },
    };
    const outcome = await runner.run(long, recordingOptions());
    expect(outcome.ok, outcome.ok ? "" : outcome.message).toBe(true);
    const seen = JSON.parse(outcome.output);
    expect(seen).toMatchObject({ inline: false, context: false, agent: body.length });
    expect(existsSync(seen.file), "the agent's file outlived the run").toBe(false);
  });

  it("drops BATON_* variables inherited from an enclosing run and keeps the rest", () => {
    const env = delegationEnv(request, { PATH: "/bin", BATON_FOCUS: "outer focus", BATON_OLD: "x" }, files);
    expect(env.PATH).toBe("/bin");
    expect(env.BATON_OLD).toBeUndefined();
    expect(env.BATON_FOCUS).toBe("edge cases first");
    const noFocus = delegationEnv(
      { ...request, context: { ...request.context, focus_prompt: undefined } },
      { BATON_FOCUS: "outer" },
      files,
    );
    expect(noFocus.BATON_FOCUS).toBeUndefined();
  });

  it("substitutes placeholders inside each argument, the prompt verbatim as one argument", async () => {
    const runner = new CommandRunner(
      node(
        "let stdin = ''; for await (const c of process.stdin) stdin += c;" +
          "console.log(JSON.stringify({ args: process.argv.slice(1), stdin, cwd: process.cwd() }))",
        "--task={task_number}",
        "{session_id}:{operation}",
        "{task_folder}",
        "{metadata_file}",
        "{prompt}",
        "{not_a_placeholder",
      ),
    );
    const outcome = await runner.run(request, recordingOptions());
    expect(JSON.parse(outcome.output)).toEqual({
      args: [
        "--task=12",
        "sess_1773703759_f69482:research",
        "specs/12_add_widget",
        "specs/12_add_widget/.return-meta.json",
        request.prompt,
        "{not_a_placeholder",
      ],
      stdin: "",
      cwd: dir,
    });
  });

  it("writes the prompt to stdin by default, or appends it as the last argument", async () => {
    const viaStdin = await new CommandRunner({ command: "cat" }).run(request, recordingOptions());
    expect(viaStdin).toMatchObject({ ok: true, output: request.prompt });

    const template = { command: "echo", args: ["first"], promptVia: "argument" as const };
    expect(commandInvocation(template, request, files)).toMatchObject({ args: ["first", request.prompt] });
    expect(commandInvocation(template, request, files).stdin).toBeUndefined();
    expect(commandInvocation({ command: "x", args: ["{prompt}"] }, request, files).stdin).toBeUndefined();
  });

  it("adds template env variables with placeholders", async () => {
    const runner = new CommandRunner({
      ...node("console.log(process.env.AGENT_LOG)"),
      env: { AGENT_LOG: "{task_folder}/agent-{session_id}.log" },
    });
    const outcome = await runner.run(request, recordingOptions());
    expect(outcome.output).toBe("specs/12_add_widget/agent-sess_1773703759_f69482.log\n");
  });

  it("reports started, output, step and finished events in order", async () => {
    const options = recordingOptions();
    const outcome = await new CommandRunner(
      node(
        "console.log('hello'); console.error('warn');" +
          "console.log('BATON_STEP: ' + JSON.stringify({ label: 'npm test', tool: 'Bash' }));" +
          "console.log('BATON_STEP: Writing report')",
      ),
    ).run(request, options);
    expect(outcome.ok).toBe(true);
    const [first, ...rest] = options.events;
    expect(first).toEqual({ type: "started", runner: "command", pid: outcome.pid });
    expect(rest.at(-1)).toMatchObject({ type: "finished", ok: true, exitCode: 0 });
    expect(rest.slice(0, -1)).toEqual(
      expect.arrayContaining([
        { type: "output", stream: "stdout", line: "hello" },
        { type: "output", stream: "stderr", line: "warn" },
        { type: "step", label: "npm test", tool: "Bash" },
        { type: "step", label: "Writing report" },
      ]),
    );
    expect(rest).toHaveLength(5);
  });

  it("maps exit, crash, timeout, abort and a missing binary to failure reasons", async () => {
    const run = (command: string, args: string[], overrides = {}) =>
      new CommandRunner({ command, args }).run(request, recordingOptions(overrides));

    const exit = await run("sh", ["-c", "echo 'TASK_ERROR: build_error - lake build failed'; exit 2"]);
    expect(exit).toMatchObject({ ok: false, reason: "exit", exitCode: 2 });
    expect(exit.output).toContain("TASK_ERROR: build_error");
    // What the process last said on stderr travels with the exit code (a sandbox that could not start says why).
    const said = await run("sh", [
      "-c",
      "echo first >&2; echo 'bwrap: Can not find source path' >&2; exit 1",
    ]);
    expect(said).toMatchObject({
      reason: "exit",
      message: "exited with code 1: bwrap: Can not find source path",
    });

    expect(await run("sh", ["-c", "kill -KILL $$"])).toMatchObject({ reason: "crashed", signal: "SIGKILL" });

    const options = recordingOptions({ timeoutMs: 300 });
    const timeout = await new CommandRunner({ command: "sh", args: ["-c", "sleep 100 & wait"] }).run(
      request,
      options,
    );
    expect(timeout).toMatchObject({ ok: false, reason: "timeout" });
    expect(options.events.at(-1)).toMatchObject({ type: "finished", ok: false, reason: "timeout" });
    expect(liveGroupMembers(timeout.pid!)).toEqual([]);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    expect(await run("sleep", ["100"], { signal: controller.signal })).toMatchObject({ reason: "aborted" });

    const missing = await run("baton-missing-agent-cli", []);
    expect(missing).toMatchObject({ ok: false, reason: "spawn_failed", pid: null });
  });

  it("rejects when onEvent throws, after stopping the agent's process group", async () => {
    let pid = 0;
    const run = new CommandRunner({ command: "sh", args: ["-c", "echo hi; sleep 100"] }).run(request, {
      ...recordingOptions(),
      onEvent: (event) => {
        if (event.type === "started") pid = event.pid!;
        if (event.type === "output") throw new Error("ui bug");
      },
    });
    await expect(run).rejects.toThrow("ui bug");
    expect(liveGroupMembers(pid)).toEqual([]);
  });

  it("rejects an invalid template with a message naming the field", () => {
    const message = (value: unknown) => {
      const parsed = parseCommandTemplate(value);
      return parsed.ok ? "" : parsed.message;
    };
    expect(message({ command: "codex", args: ["exec", "{promt}"] })).toContain(
      "args[1]: unknown placeholder {promt}",
    );
    expect(message({ command: "codex", args: ["{prompt}"], promptVia: "stdin" })).toContain(
      'args[0]: {prompt} with promptVia "stdin"',
    );
    expect(message({ command: "" })).toContain("command: must be at least 1");
    expect(message({ command: "x", promptvia: "stdin" })).toContain('unknown key "promptvia"');
    expect(message({ command: "x", promptVia: "file" })).toContain(
      'promptVia: expected one of "stdin", "argument"',
    );
    expect(message({ command: "x", env: { "BAD-NAME": "1" } })).toContain("env.BAD-NAME");
    expect(() => new CommandRunner({ command: "x", args: [1] })).toThrow(ConfigError);
    expect(() => new CommandRunner({ command: "x", args: [1] })).toThrow(
      "args[0]: expected string, got number 1",
    );
  });

  it("is created from configuration by createRunner", async () => {
    const runner = createRunner({ type: "command", command: "echo", args: ["{task_number}"] });
    expect(runner.kind).toBe("command");
    expect((await runner.run(request, recordingOptions())).output).toBe("12\n");
    expect(() => createRunner({ type: "command", command: "echo", shell: true } as never)).toThrow(
      'runner: (top level): unknown key "shell"',
    );
    expect(() => createRunner({ type: "gemini" } as never)).toThrow(ConfigError);
    expect(createRunner({ type: "codex" }).kind).toBe("codex");
    expect(createRunner({ type: "opencode" }).kind).toBe("opencode");
  });
});
