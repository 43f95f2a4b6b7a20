import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { batonKeyDir } from "../shared/baton-paths.js";
import { IoError } from "../shared/errors.js";
import { DEFAULT_HOOK_PORT, HOOK_SECRET_HEADER, secretId } from "../shared/hook-port.js";
import { HOOK_EVENTS, handleHook } from "./dispatch.js";
import { serverHookSecret } from "./hook-secret.js";

/** The port `baton serve` listens on unless told otherwise; `baton init --hooks http` writes it. */
/** Claude Code HTTP hooks carry no environment; a body above this is not a hook input. */
const MAX_BODY_BYTES = 16 << 20;

export interface HookServer {
  server: Server;
  port: number;
  /** `http://127.0.0.1:<port>`; hooks are POSTed to `${url}/hooks/<event>`. */
  url: string;
  close(): Promise<void>;
}

export function hookUrl(port: number, event: keyof typeof HOOK_EVENTS): string {
  return `http://127.0.0.1:${port}/hooks/${event}`;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body above ${MAX_BODY_BYTES} bytes`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

interface HookServerOptions {
  port?: number;
  /** Logs of inputs without a `cwd`; default the current folder. */
  fallbackDir?: string;
  /** The repository it was started for, said by `GET /health` so `baton init` can tell its own server. */
  root?: string;
  /** Other routes on the same server (the dashboard); returns false for a request it does not serve. */
  routes?: (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;
  /** The installation's hook secret every hook request must carry; "" or unset: none (a clone not yet initialised). */
  secret?: string;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    // bin/baton-hook trusts only a reply that says it is Baton's: a port file can outlive its server
    // and the port be taken by something else.
    "x-baton-hook": "1",
  });
  response.end(text);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Why a hook request cannot be Claude Code's (or Baton's forwarder's), or null: every web page the user
 * opens can reach 127.0.0.1. A browser names the page's origin (`Origin`) on a cross-site POST and cannot
 * send `application/json` to another origin without a preflight this server never answers; a page reached
 * through a rebinding host name carries that name in `Host`. Claude Code sends none of these.
 */
function notFromHost(request: IncomingMessage, secret: string): string | null {
  if (secret !== "" && !sameSecret(request.headers[HOOK_SECRET_HEADER.toLowerCase()], secret))
    return `hooks answer only this installation's Claude Code and forwarders (no or a wrong ${HOOK_SECRET_HEADER})`;
  const host = (request.headers.host ?? "").replace(/:\d+$/, "");
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]")
    return `hooks answer only requests addressed to 127.0.0.1 or localhost, not ${JSON.stringify(request.headers.host ?? "")}`;
  if (request.headers.origin !== undefined)
    return `hooks answer no web page (this request came from ${JSON.stringify(request.headers.origin)})`;
  const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    return `a hook input is application/json, not ${JSON.stringify(type ?? "")}`;
  return null;
}

function sameSecret(sent: string | string[] | undefined, secret: string): boolean {
  if (typeof sent !== "string") return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** One request: health, another route's page, or a hook event's decision. */
async function answer(
  options: HookServerOptions,
  fallbackDir: string,
  request: IncomingMessage,
  response: ServerResponse,
) {
  const send = (status: number, body: unknown) => sendJson(response, status, body);
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  const match = /^\/hooks\/([A-Za-z-]+)\/?$/.exec(path);
  if (request.method === "GET" && path === "/health")
    return send(200, {
      ok: true,
      pid: process.pid,
      root: options.root ?? fallbackDir,
      keyDir: batonKeyDir(),
      secretId: secretId(options.secret ?? ""),
    });
  if (!match && options.routes) {
    try {
      if (await options.routes(request, response, path)) return;
    } catch (error) {
      if (!response.headersSent) return send(500, { error: messageOf(error) });
      response.end();
      return;
    }
  }
  if (request.method !== "POST" || !match) {
    return send(404, {
      error: "POST the hook input JSON to /hooks/<event>",
      events: Object.keys(HOOK_EVENTS),
    });
  }
  const refused = notFromHost(request, options.secret ?? "");
  if (refused) return send(403, { error: refused });
  let body = "";
  try {
    body = await readBody(request);
  } catch {
    // the input is unusable; `{}` lets the tool call go on, and handleHook logs the bad input
  }
  try {
    send(200, await handleHook(match[1]!, body, { fallbackDir }));
  } catch (error) {
    // not 200: the forwarder then decides in-process rather than take an empty reply as an allow
    send(500, { error: messageOf(error) });
  }
}

function listen(server: Server, wanted: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new IoError(`port ${wanted} on 127.0.0.1 is in use (is another \`baton serve\` running?)`, {
              hint: "Pass --port N, or stop the other server.",
            })
          : error,
      ),
    );
    server.listen(wanted, "127.0.0.1", () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
}

/**
 * A resident server for Claude Code's `"type": "http"` hooks: `POST /hooks/<event>` with the hook
 * input JSON answers the same reply a command hook prints, without starting a process per tool
 * call. Bound to 127.0.0.1 only. The project comes from each input's `cwd` (walked up to the
 * repository root), so one server can answer several projects. `GET /health` says it is alive.
 */
export async function startHookServer(options: HookServerOptions = {}): Promise<HookServer> {
  const fallbackDir = options.fallbackDir ?? process.cwd();
  const secret = options.secret ?? serverHookSecret(options.root ?? fallbackDir);
  const held = { ...options, secret };
  const server = createServer((request, response) => void answer(held, fallbackDir, request, response));
  server.keepAliveTimeout = 60_000;
  await listen(server, options.port ?? DEFAULT_HOOK_PORT);
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { DEFAULT_HOOK_PORT };
