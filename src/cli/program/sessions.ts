import { join } from "node:path";
import type { Command } from "commander";
import { BATON_DIR } from "../../shared/baton-paths.js";
import { OPERATIONS } from "../../shared/operation-names.js";
import { present } from "../../shared/present.js";
import { RUNNER_CHOICES } from "../../shared/runner-names.js";
import { described, print, repoOf, selfCommand } from "./io.js";

export function defineSessionCommands(program: Command): void {
  defineInit(program);
  defineGateIn(program);
  defineGateOut(program);
  defineServe(program);
  defineMcp(program);
  defineUi(program);
  defineHook(program);
}

function defineInit(program: Command): void {
  described(
    program
      .command("init")
      .description("install Baton's slash commands, agents and hooks for Claude Code into a repository")
      .argument("[dir]", "repository root (default: the current repository)")
      .option("-n, --dry-run", "print the diff of every file it would write; write nothing")
      .option("--uninstall", "remove what baton init added (files you changed are kept)")
      .option("-f, --force", "overwrite files that are not Baton's, keeping each as <name>.bak")
      .option(
        "--hooks <type>",
        "resident (default: forward to a resident baton serve, in-process when it is down) | http (the default with --host-sandbox off: the fastest, and a tool call is blocked while its server is down) | command (a process per call, slow)",
      )
      .option(
        "--port <n>",
        "port of `baton serve` for --hooks http (default: one derived from the repository's path)",
      )
      .option(
        "--ci <provider>",
        "also write a CI workflow that runs `baton verify` on pull requests (github)",
      )
      .option(
        "--host <host>",
        "also install for another agent CLI: codex (Baton's hooks in .codex/hooks.json) or opencode (commands, agents and a plugin in .opencode/)",
      )
      .option(
        "--host-sandbox <on|off>",
        "on (default): turn Claude Code's own sandbox on for every Bash command, store, git and Baton's files read-only, Baton's key unreadable | off: leave it as it is",
      )
      .option("--mcp", "also register `baton mcp` as Claude Code's MCP server (.mcp.json)")
      .option("--no-mcp", "take that registration out again")
      .option("--bin <command>", "how Claude Code runs Baton (default: baton if on PATH, else node <path>)")
      .option("--json", "print JSON")
      .action(async (dir: string | undefined, opts, cmd: Command) => {
        const { formatInit, init } = await import("../commands/init.js");
        const result = await init({ ...opts, dir, repo: repoOf(cmd) });
        print(result, opts, () => formatInit(result));
        if (result.conflicts.length > 0) process.exitCode = 1;
      }),
    "sessions",
    "init",
  );
}

function defineGateIn(program: Command): void {
  described(
    program
      .command("gate-in")
      .description(
        "open a checkpoint inside a Claude Code session and print what to delegate (run by /research …)",
      )
      .argument("<operation>", OPERATIONS.join(" | "))
      .argument("<number>", "task number")
      .argument("[focus...]", "what to concentrate on (passed to the agent)")
      .option(
        "-f, --force",
        "start past the lifecycle table (audited), or take over an open in-session checkpoint",
      )
      .option("--agent <name>", "route to this agent or skill instead of the language table")
      .option("--language <language>", "route as if the task had this language")
      .option("--host <host>", "the agent CLI running the session: claude (default) or opencode")
      .option("--json", "print JSON")
      .action(async (operation: string, number: string, focus: string[], opts, cmd: Command) => {
        const { formatGateIn, gateInCommand, gateHost } = await import("../commands/gates.js");
        // Checked before the gate opens: a wrong --host must not leave a checkpoint behind.
        const host = gateHost(opts.host);
        const result = await gateInCommand({
          ...opts,
          operation,
          number,
          focus,
          repo: repoOf(cmd),
          claudeSessionId: process.env["CLAUDE_CODE_SESSION_ID"] || undefined,
        });
        print(result, opts, () => formatGateIn(result, result.installedBin ?? selfCommand(), host));
        if (!result.ok) process.exitCode = 1;
      }),
    "sessions",
    "gate-in",
  );
}

function defineGateOut(program: Command): void {
  described(
    program
      .command("gate-out")
      .description(
        "close a checkpoint inside a Claude Code session: verify the agent's result, record it, commit",
      )
      .argument("<operation>", OPERATIONS.join(" | "))
      .argument("<number>", "task number")
      .requiredOption("--session <id>", "the session id gate-in printed")
      .option("--no-commit", "leave the result uncommitted")
      .option("--json", "print JSON")
      .action(async (operation: string, number: string, opts, cmd: Command) => {
        const { formatGateOut, gateOutCommand } = await import("../commands/gates.js");
        const result = await gateOutCommand({ ...opts, operation, number, repo: repoOf(cmd) });
        print(result, opts, () => formatGateOut(result));
        if (!result.ok) process.exitCode = 1;
      }),
    "sessions",
    "gate-out",
  );
}

function defineServe(program: Command): void {
  described(
    program
      .command("serve")
      .description("serve Claude Code http hooks on 127.0.0.1: POST /hooks/<event>")
      .option("--port <n>", "port (default 4891; 0 picks a free one)")
      .option(
        "--port-file <file>",
        "write the port there once listening (removed on exit): bin/baton-hook reads it",
      )
      .option(
        "--sessions",
        "end when the repository's last host session has ended (SessionStart starts it so)",
      )
      .action(async (opts: { port?: string; portFile?: string; sessions?: boolean }, cmd: Command) => {
        const { DEFAULT_HOOK_PORT, HOOK_EVENTS, startHookServer } = await import("../../hooks/index.js");
        const port = opts.port === undefined ? DEFAULT_HOOK_PORT : Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65_535) {
          const { UsageError } = await import("../../shared/index.js");
          throw new UsageError(`--port must be a port number, got "${opts.port}"`);
        }
        const server = await startHookServer({ port, root: repoOf(cmd) });
        const { publishPort, readSpecsDir, unpublishPort } = await import("../../hooks/index.js");
        // side door: loaded lazily, this one module, when the command needs it
        const { liveSessions } = await import("../../state/live-sessions.js");
        if (opts.portFile) publishPort(opts.portFile, server.port);
        const urls = Object.keys(HOOK_EVENTS).map((event) => `  POST ${server.url}/hooks/${event}\n`);
        process.stdout.write(`Baton hook server on ${server.url}\n${urls.join("")}`);
        await new Promise<void>((resolve) => {
          const stop = () => void server.close().then(resolve);
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
          // A server started for a repository (by SessionStart or the opencode plugin) ends with it.
          const root = repoOf(cmd);
          setInterval(() => present(root) || stop(), 5_000).unref();
          // Started for sessions, it ends with the last of them (a crashed session's host is gone too).
          const internal = join(readSpecsDir(root), BATON_DIR);
          if (opts.sessions) setInterval(() => liveSessions(internal).length > 0 || stop(), 2_000).unref();
        });
        if (opts.portFile) unpublishPort(opts.portFile, server.port);
      }),
    "sessions",
    "serve",
  );
}

function defineMcp(program: Command): void {
  described(
    program
      .command("mcp")
      .description(
        "serve Baton's gated operations to an MCP client (Claude Desktop, Cursor, VS Code, Codex) over stdio",
      )
      .option("--runner <type>", `${RUNNER_CHOICES}, for every operation it starts`)
      .option("--script <file>", "a scripted agent for every operation it starts")
      .option(
        "--allow-approvals",
        "let the client approve and reject plans: you consent to that by starting it so",
      )
      .action(async (opts: { runner?: string; script?: string; allowApprovals?: boolean }, cmd: Command) => {
        const { loadConfig } = await import("../../config/index.js");
        const { requireStore, storeContext } = await import("../../state/index.js");
        const { serveMcp } = await import("../../mcp/index.js");
        const config = await loadConfig(repoOf(cmd));
        requireStore(storeContext(config));
        const operationArgs = [
          ...(opts.runner ? ["--runner", opts.runner] : []),
          ...(opts.script ? ["--script", opts.script] : []),
        ];
        // stdout is the protocol's: nothing else is written there.
        await serveMcp(config, { operationArgs, allowApprovals: opts.allowApprovals === true });
      }),
    "sessions",
    "mcp",
  );
}

function defineUi(program: Command): void {
  described(
    program
      .command("ui")
      .description(
        "a local dashboard on 127.0.0.1: tasks by status, live runs, costs (serves the http hooks too)",
      )
      .option("--port <n>", "port (default 4891, the http hooks' port; 0 picks a free one)")
      .action(async (opts: { port?: string }, cmd: Command) => {
        const { DEFAULT_HOOK_PORT, startHookServer } = await import("../../hooks/index.js");
        const { UsageError } = await import("../../shared/index.js");
        const port = opts.port === undefined ? DEFAULT_HOOK_PORT : Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65_535) {
          throw new UsageError(`--port must be a port number, got "${opts.port}"`);
        }
        const { loadConfig } = await import("../../config/index.js");
        // side door: loaded lazily, this one module, when the command needs it
        const { installedBin } = await import("../../init/manifest.js");
        const { dashboard } = await import("../../ui/index.js");
        const config = await loadConfig(repoOf(cmd));
        const { requireStore, storeContext } = await import("../../state/index.js");
        requireStore(storeContext(config));
        const ui = dashboard(config, { bin: installedBin(config.root) ?? "baton" });
        const server = await startHookServer({ port, fallbackDir: config.root, routes: ui.handle });
        process.stdout.write(
          `Baton dashboard on ${server.url}/ (hooks on ${server.url}/hooks/<event>); Ctrl-C stops it\n`,
        );
        await new Promise<void>((resolve) => {
          const stop = () => {
            ui.close();
            void server.close().then(resolve);
          };
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
      }),
    "maintenance",
    "ui",
  );
}

function defineHook(program: Command): void {
  // Claude Code runs hooks as `baton hook …`, which bin/baton.js sends straight to dist/hooks/main.js;
  // this entry serves `node dist/cli/main.js hook …` and stays out of the help.
  program
    .command("hook", { hidden: true })
    .argument("<event>", "pre-tool-use | post-tool-use | stop | subagent-stop")
    .option("--port <n>", "session-start: the port of the http hooks' server")
    .action(async (event: string, opts: { port?: string }) => {
      const { runHookCommand } = await import("../../hooks/index.js");
      await runHookCommand(event, opts.port === undefined ? [] : ["--port", opts.port]);
    });
}
