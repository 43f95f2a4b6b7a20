import { setTimeout as sleep } from "node:timers/promises";
import { UsageError } from "../shared/index.js";
import { inert } from "../shared/terminal-text.js";
import type { StatusView } from "../status/index.js";

/**
 * `baton status --watch`: in a terminal the view is redrawn in place, each line clipped to its width;
 * into a pipe or file a new snapshot is printed only when something changed (plain lines, no escapes).
 * Runs until Ctrl-C.
 */
export async function watchStatus(
  read: () => Promise<StatusView>,
  format: (view: StatusView, width?: number) => string,
  options: { json: boolean; interval?: string | undefined },
): Promise<void> {
  const seconds = options.interval === undefined ? 1 : Number(options.interval);
  if (!(seconds >= 0.1 && seconds <= 3600)) {
    throw new UsageError(
      `--interval must be a number of seconds from 0.1 to 3600, got "${options.interval}"`,
    );
  }
  const tty = process.stdout.isTTY === true && !options.json;
  let last = "";
  const stopped = new AbortController();
  const stop = () => stopped.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    while (!stopped.signal.aborted) {
      const view = await read();
      if (tty) {
        const text = inert(format(view, process.stdout.columns || 80));
        // Home, clear, the view: one write, so a redraw never shows half a view.
        process.stdout.write(`\u001b[H\u001b[2J${text}\n`);
      } else {
        const { at: _at, ...rest } = view;
        const key = JSON.stringify({ ...rest, running: rest.running.map(({ elapsedMs: _e, ...r }) => r) });
        if (key !== last) {
          process.stdout.write(
            options.json ? `${JSON.stringify(view)}\n` : `--- ${view.at}\n${inert(format(view))}\n`,
          );
          last = key;
        }
      }
      await sleep(seconds * 1000, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
