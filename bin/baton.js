#!/usr/bin/env node
// Hooks run on every tool call of a Claude Code session: `baton hook …` loads only the hook entry,
// never commander and the command table. `task list`, `task show N` and `status` try the store summary
// first (dist/cli/fast-read.js), which hands anything it cannot answer to the full CLI.
const [group, command] = process.argv.slice(2);
if (group === "hook") await import("../dist/hooks/main.js");
else if ((group === "task" && (command === "list" || command === "show")) || group === "status") {
  await import("../dist/cli/fast-read.js");
} else await import("../dist/cli/main.js");
