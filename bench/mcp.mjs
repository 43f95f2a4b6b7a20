// The MCP server's costs, measured side by side with the CLI in one run (these machines are noisy): how long
// `baton mcp` takes to start and answer `initialize`, against one `baton task list` process; what one `tasks`
// call costs on a running server, against a fresh `baton task list --json` each time; and the server's memory.
// Usage: node bench/mcp.mjs [--tasks 1000] [--calls 40] [--quick]
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BIN, DIST_GENERATOR, machine, median, numberFlag, QUICK, ROOT, table, tempDir } from "./common.mjs";

const TASKS = numberFlag("tasks", QUICK ? 200 : 1000);
const CALLS = numberFlag("calls", QUICK ? 15 : 40);
const sdk = (path) =>
  import(pathToFileURL(join(ROOT, "node_modules/@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { generateRepo } = await import(DIST_GENERATOR);

const repo = tempDir("mcp");
const dir = repo.dir;
execFileSync("git", ["init", "-q"], { cwd: dir });
generateRepo({ dir, active: TASKS, archived: 0, folders: false, seed: 3 });
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const cli = (args) => {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 << 20,
  });
  if (result.status !== 0) throw new Error(`baton ${args.join(" ")}: ${result.stderr}`);
  return ms(start);
};

async function startServer() {
  const start = process.hrtime.bigint();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp"],
    cwd: dir,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return { client, transport, startMs: ms(start) };
}

const rssKb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);

try {
  console.log(
    `# MCP server: ${TASKS} tasks, ${CALLS} calls, side by side with the CLI\nmachine: ${machine()}\n`,
  );
  const starts = [];
  const cliStarts = [];
  for (let i = 0; i < 5; i++) {
    const { client, startMs } = await startServer();
    starts.push(startMs);
    await client.close();
    cliStarts.push(cli(["task", "list", "--status", "none-such"]));
  }
  const { client, transport } = await startServer();
  const calls = [];
  const cliCalls = [];
  let listed = 0;
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    const result = await client.callTool({ name: "tasks", arguments: {} });
    calls.push(ms(start));
    listed = result.structuredContent.tasks.length;
    cliCalls.push(cli(["task", "list", "--json"]));
  }
  const showOne = [];
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await client.callTool({ name: "tasks", arguments: { task: TASKS } });
    showOne.push(ms(start));
  }
  const rss = rssKb(transport.pid);
  await client.close();
  if (listed !== TASKS) throw new Error(`tasks listed ${listed}, expected ${TASKS}`);
  const f = (n) => n.toFixed(1);
  console.log(
    table([
      ["measure (median ms)", "baton mcp", "CLI process", "ratio mcp/CLI"],
      [
        "start (to initialize / one task list)",
        f(median(starts)),
        f(median(cliStarts)),
        (median(starts) / median(cliStarts)).toFixed(2),
      ],
      [
        `list ${TASKS} tasks (a call / a process)`,
        f(median(calls)),
        f(median(cliCalls)),
        (median(calls) / median(cliCalls)).toFixed(2),
      ],
      ["show one task (a call)", f(median(showOne)), "", ""],
    ]),
  );
  console.log(`\nserver memory after ${2 * CALLS} calls: ${(rss / 1024).toFixed(1)} MB RSS`);
} finally {
  repo.cleanup();
}
