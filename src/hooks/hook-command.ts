import { readFileSync, writeSync } from "node:fs";
import { relative } from "node:path";
import { isatty } from "node:tty";
import { batonPaths } from "../shared/baton-paths.js";
import { handleHook } from "./dispatch.js";

const USAGE = `usage: baton hook <event>   (event: pre-tool-use | post-tool-use | stop | subagent-stop)

Reads Claude Code's hook input JSON on stdin and prints the reply JSON on stdout; always exits 0.
Decisions are logged to <project>/${relative("/p", batonPaths("/p").hookLog)}.
`;

async function readStdin(): Promise<string> {
  // A person running `baton hook stop` by hand would otherwise wait forever for input. isatty and
  // fd reads avoid touching process.stdin, whose stream setup costs milliseconds on every tool call.
  if (isatty(0)) return "";
  try {
    return readFileSync(0, "utf8");
  } catch (error) {
    // A non-blocking stdin (some parents hand one over) refuses sync reads; stream it instead.
    if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
}

/** `baton hook <event>`: the command-hook entry. Prints exactly one JSON reply, whatever happens. */
export async function runHookCommand(event: string | undefined, args: string[] = []): Promise<void> {
  if (event === "--help" || event === "-h") {
    process.stdout.write(USAGE);
    return;
  }
  let reply: Record<string, unknown> = {};
  try {
    const stdin = await readStdin();
    reply = await handleHook(event ?? "", stdin, {
      projectDir: process.env["CLAUDE_PROJECT_DIR"] || undefined,
      fallbackDir: process.cwd(),
      servePort: portArgument(args),
    });
  } catch (error) {
    process.stderr.write(`baton hook: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  writeStdout(`${JSON.stringify(reply)}\n`);
}

/** `--port N` after the event; anything else is no port (the hook still answers). */
function portArgument(args: string[]): number | undefined {
  const index = args.indexOf("--port");
  const port = index === -1 ? Number.NaN : Number(args[index + 1]);
  return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

/** fd writes for the same reason as the reads; a pipe Claude Code closed early (timeout) is ignored. */
function writeStdout(text: string): void {
  const buffer = Buffer.from(text, "utf8");
  let written = 0;
  try {
    while (written < buffer.length) written += writeSync(1, buffer, written);
  } catch (error) {
    // EPIPE: nobody listens any more. EAGAIN: a non-blocking pipe is full; the stream waits for it.
    if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return;
    process.stdout.on("error", () => {});
    process.stdout.write(buffer.subarray(written));
  }
}
