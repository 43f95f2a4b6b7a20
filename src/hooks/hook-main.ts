import { runHookCommand } from "./hook-command.js";

/**
 * Build entry `dist/hooks/main.js`. bin/baton.js loads it directly for `baton hook <event>`, so a
 * hook — which runs on every tool call — never pays for commander or the command table.
 */
process.exitCode = 0;
await runHookCommand(process.argv[3], process.argv.slice(4));
