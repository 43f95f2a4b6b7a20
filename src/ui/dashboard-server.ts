import { statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { basename } from "node:path";
import type { BatonConfig } from "../config/index.js";
import { recoverOpenRuns } from "../engine/recovery/recover-checkpoint.js";
import { eventsPath, parseEventLines, readFrom } from "../shared/event-stream.js";
import { specsPaths } from "../state/index.js";
import { readStatus, type StatusView } from "../status/index.js";
import { readBoard, readTaskPage } from "./data.js";
import { renderBoard, renderNotFound, renderTask } from "./render.js";

/** Handles one request, or says it is not the dashboard's (false), so the hook routes can answer it. */
export type RouteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
) => Promise<boolean>;

export interface Dashboard {
  handle: RouteHandler;
  close(): void;
}

const POLL_MS = 400;

/**
 * `baton ui`: the dashboard on the same 127.0.0.1 server as the http hooks. Pages are rendered on the
 * server from the store and the event stream; `/events` pushes what changed. Actions (recovering a
 * dead run) go through the engine as the CLI's do, and only with the page's confirmation header.
 */
export function dashboard(config: BatonConfig, options: { bin?: string } = {}): Dashboard {
  const name = basename(config.root);
  const bin = options.bin ?? "baton";
  const status = (): StatusView => readStatus(config.root, config.specsDir, { bin });
  const clients = new Set<ServerResponse>();
  let offset = statSize(eventsPath(config.root));
  let checkpoints = checkpointKey(config);
  let lastPush = 0;

  const send = (event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const client of clients) client.write(frame);
  };

  const poll = setInterval(() => {
    if (clients.size === 0) return;
    void push().catch(() => undefined);
  }, POLL_MS);
  poll.unref();

  async function push(): Promise<void> {
    const size = statSize(eventsPath(config.root));
    const key = checkpointKey(config);
    const view = status();
    const stale = Date.now() - lastPush > 2000 && view.running.length > 0;
    if (size === offset && key === checkpoints && !stale) return;
    const { text, end } = size < offset ? { text: "", end: 0 } : readFrom(eventsPath(config.root), offset);
    offset = end;
    checkpoints = key;
    lastPush = Date.now();
    send("status", view);
    const touched = new Set(parseEventLines(text).flatMap((e) => (e.task === undefined ? [] : [e.task])));
    if (touched.size === 0) return;
    const board = await readBoard(config);
    const tasks = board.tasks.filter((t) => touched.has(t.number));
    send("tasks", tasks);
    for (const t of tasks) send("task", t);
  }

  const html = (response: ServerResponse, code: number, body: string) => {
    response.writeHead(code, {
      "content-type": "text/html; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      "cache-control": "no-store",
      // Agent-written Markdown is rendered here: no script but the page's own may run.
      "content-security-policy":
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
    });
    response.end(body);
  };
  const json = (response: ServerResponse, code: number, value: unknown) => {
    const body = JSON.stringify(value);
    response.writeHead(code, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    response.end(body);
  };

  const handle: RouteHandler = async (request, response, path) => {
    if (!localHost(request)) {
      json(response, 403, {
        error: "the dashboard answers only requests addressed to 127.0.0.1 or localhost",
      });
      return true;
    }
    if (request.method === "GET" && path === "/") {
      html(response, 200, renderBoard(name, await readBoard(config), status()));
      return true;
    }
    const task = /^\/task\/(\d+)\/?$/.exec(path);
    if (request.method === "GET" && task) {
      const page = await readTaskPage(config, Number(task[1]));
      if (!page) html(response, 404, renderNotFound(name, `Task ${task[1]} is not an active task.`));
      else html(response, 200, renderTask(name, page, status()));
      return true;
    }
    if (request.method === "GET" && path === "/api/status") {
      json(response, 200, status());
      return true;
    }
    if (request.method === "GET" && path === "/api/tasks") {
      json(response, 200, await readBoard(config));
      return true;
    }
    if (request.method === "GET" && path === "/events") {
      response.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-store",
        connection: "keep-alive",
      });
      response.write(`retry: 1000\nevent: status\ndata: ${JSON.stringify(status())}\n\n`);
      clients.add(response);
      request.on("close", () => clients.delete(response));
      return true;
    }
    const recover = /^\/api\/recover\/(\d+)$/.exec(path);
    if (request.method === "POST" && recover) {
      if (request.headers["x-baton-confirm"] !== "yes") {
        json(response, 400, { error: "an action needs the page's confirmation (x-baton-confirm: yes)" });
        return true;
      }
      const actions = await recoverOpenRuns(config, Number(recover[1]));
      json(response, 200, {
        actions,
        message:
          actions.length === 0
            ? "nothing to recover"
            : actions.map((a) => `${a.action}: ${a.detail}`).join("; "),
      });
      return true;
    }
    return false;
  };

  return {
    handle,
    close: () => {
      clearInterval(poll);
      for (const client of clients) client.end();
      clients.clear();
    },
  };
}

function statSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Which checkpoints are open, and when each last changed: an opened or closed run redraws the page. */
function checkpointKey(config: BatonConfig): string {
  try {
    const dir = `${specsPaths(config.specsDir).internalDir}/checkpoints`;
    const s = statSync(dir);
    return `${s.mtimeMs}`;
  } catch {
    return "-";
  }
}

/** A DNS-rebinding page names another host; only 127.0.0.1 and localhost reach the dashboard. */
function localHost(request: IncomingMessage): boolean {
  const host = (request.headers.host ?? "").replace(/:\d+$/, "");
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
}
