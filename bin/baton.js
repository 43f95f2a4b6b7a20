#!/usr/bin/env node
// Hooks run on every tool call of a Claude Code session: `baton hook …` loads only the hook entry,
// never commander and the command table.
if (process.argv[2] === "hook") await import("../dist/hooks/main.js");
else await import("../dist/cli/main.js");
