import { inert } from "../shared/terminal-text.js";
import { fastRead } from "./fast-read.js";

/**
 * The entry bin/baton.js tries for `task list` and `task show N`: prints the answer from the store summary,
 * or hands the command to the full CLI. A reader that goes away (`| head -1`) ends it quietly.
 */
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});
const answer = await fastRead(process.argv.slice(2), process.cwd());
if (answer === null) await import("./main.js");
else process.stdout.write(`${inert(answer)}\n`);
