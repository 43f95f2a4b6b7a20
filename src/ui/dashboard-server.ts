import { statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { basename } from "node:path";
import { type ApprovalVerdict, approverName } from "../approvals/index.js";
import type { BatonConfig } from "../config/index.js";
import { recordApproval, recoverOpenRuns } from "../engine/index.js";
import { eventsPath, parseEventLines, readFrom } from "../shared/event-stream.js";
import { monotonicMs } from "../shared/time.js";
import { specsPaths } from "../state/index.js";
import { readStatus, type StatusView } from "../status/index.js";
import { readWaitingPlans } from "./approval-panel.js";
import { readArtifact, readBoard, readTaskPage } from "./data.js";
import { renderArtifact, renderBoard, renderNotFound, renderTask } from "./render.js";
import { jsonBody, newDashboardToken, writeRefusal } from "./write-guard.js";

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

/** How the dashboard reads the status (tests pass one that writes while it reads). */
type ReadStatus = typeof readStatus;

/**
 * `baton ui`: the dashboard on the same 127.0.0.1 server as the http hooks. Pages are rendered on the
 * server from the store and the event stream; `/events` pushes what changed. Actions (recovering a
 * dead run) go through the engine as the CLI's do, and only with the page's confirmation header.
 */
export function dashboard(
  config: BatonConfig,
  options: { bin?: string; readStatus?: ReadStatus } = {},
): Dashboard {
  const live = new LiveDashboard(config, options.bin ?? "baton", options.readStatus ?? readStatus);
  return {
    handle: (request, response, path) => live.handle(request, response, path),
    close: () => live.close(),
  };
}

function sendHtml(response: ServerResponse, code: number, body: string): void {
  response.writeHead(code, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    // Agent-written Markdown is rendered here: no script but the page's own may run.
    "content-security-policy":
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
  });
  response.end(body);
}

function sendJson(response: ServerResponse, code: number, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  response.end(body);
}

/** The dashboard of one repository: its pages, and the clients it pushes what changed to. */
class LiveDashboard {
  private readonly name: string;
  private readonly clients = new Set<ServerResponse>();
  private offset: number;
  private checkpoints: string;
  private lastPush = 0;
  /** Required by every write (write-guard.ts); made anew each start. */
  private readonly token = newDashboardToken();
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly config: BatonConfig,
    private readonly bin: string,
    private readonly readStatus: ReadStatus,
  ) {
    this.name = basename(config.root);
    this.offset = statSize(eventsPath(config.root));
    this.checkpoints = checkpointKey(config);
    this.poll = setInterval(() => {
      if (this.clients.size > 0) void this.push().catch(() => undefined);
    }, POLL_MS);
    this.poll.unref();
  }

  private status(): StatusView {
    return this.readStatus(this.config.root, this.config.specsDir, { bin: this.bin });
  }

  private send(event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const client of this.clients) client.write(frame);
  }

  /** What changed since the last push: the status, and the cards of the tasks new events touched. */
  private async push(): Promise<void> {
    const { config } = this;
    const path = eventsPath(config.root);
    const size = statSize(path);
    const key = checkpointKey(config);
    // The new events are taken before the status is read: one appended in between lies past `end` and is sent by
    // the next poll. Taken after, it was counted as sent without being in the view, and the page never showed it.
    const { text, end } =
      size === this.offset
        ? { text: "", end: size }
        : size < this.offset
          ? { text: "", end: 0 }
          : readFrom(path, this.offset);
    const view = this.status();
    const stale = monotonicMs() - this.lastPush > 2000 && view.running.length > 0;
    if (end === this.offset && key === this.checkpoints && !stale) return;
    this.offset = end;
    this.checkpoints = key;
    this.lastPush = monotonicMs();
    this.send("status", view);
    const touched = new Set(parseEventLines(text).flatMap((e) => (e.task === undefined ? [] : [e.task])));
    if (touched.size === 0) return;
    const board = await readBoard(config);
    const tasks = board.tasks.filter((t) => touched.has(t.number));
    this.send("tasks", tasks);
    for (const t of tasks) this.send("task", t);
  }

  async handle(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
    if (!localHost(request)) {
      sendJson(response, 403, {
        error: "the dashboard answers only requests addressed to 127.0.0.1 or localhost",
      });
      return true;
    }
    if (request.method === "GET") return this.get(request, response, path);
    const recover = /^\/api\/recover\/(\d+)$/.exec(path);
    const answer = /^\/api\/(approve|reject)\/(\d+)$/.exec(path);
    if (request.method !== "POST" || (!recover && !answer)) return false;
    const refused = writeRefusal(request, this.token);
    if (refused) sendJson(response, 403, { error: refused });
    else if (recover) await this.recover(response, Number(recover[1]));
    else
      await this.answer(
        request,
        response,
        answer![1] === "approve" ? "approved" : "rejected",
        Number(answer![2]),
      );
    return true;
  }

  /** A person's word on a plan from its task page: bound to the bytes the page showed (`sha256`). */
  private async answer(
    request: IncomingMessage,
    response: ServerResponse,
    verdict: ApprovalVerdict,
    taskNumber: number,
  ): Promise<void> {
    const body = await jsonBody(request);
    const sha256 = typeof body?.["sha256"] === "string" ? body["sha256"] : undefined;
    const reason = typeof body?.["reason"] === "string" ? body["reason"].trim() : "";
    if (!sha256)
      return sendJson(response, 400, { error: "an answer names the plan's sha256 as the page showed it" });
    if (verdict === "rejected" && !reason)
      return sendJson(response, 400, { error: "a rejection needs a reason" });
    const outcome = await recordApproval({
      config: this.config,
      taskNumber,
      verdict,
      reason,
      seenSha256: sha256,
    });
    if (!outcome.ok) return sendJson(response, 409, { error: `${outcome.code}: ${outcome.message}` });
    const who = approverName(outcome.approval.by);
    sendJson(response, 200, {
      message: `${verdict === "approved" ? "Approved" : "Rejected"} as ${who}`,
      approval: outcome.approval,
    });
  }

  private async get(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
    const { config, name } = this;
    const task = /^\/task\/(\d+)\/?$/.exec(path);
    const artifact = /^\/task\/(\d+)\/artifact\/(\d+)$/.exec(path);
    if (path === "/")
      sendHtml(
        response,
        200,
        renderBoard(name, await readBoard(config), this.status(), await readWaitingPlans(config)),
      );
    else if (artifact) {
      const found = await readArtifact(config, Number(artifact[1]), Number(artifact[2]));
      if (!found)
        sendHtml(response, 404, renderNotFound(name, `Task ${artifact[1]} has no artifact ${artifact[2]}.`));
      else sendHtml(response, 200, renderArtifact(name, found));
    } else if (task) {
      const page = await readTaskPage(config, Number(task[1]));
      if (!page) sendHtml(response, 404, renderNotFound(name, `Task ${task[1]} is not an active task.`));
      else sendHtml(response, 200, renderTask(name, page, this.status(), this.token));
    } else if (path === "/api/status") sendJson(response, 200, this.status());
    else if (path === "/api/tasks") sendJson(response, 200, await readBoard(config));
    else if (path === "/events") this.subscribe(request, response);
    else return false;
    return true;
  }

  private subscribe(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    response.write(`retry: 1000\nevent: status\ndata: ${JSON.stringify(this.status())}\n\n`);
    this.clients.add(response);
    request.on("close", () => this.clients.delete(response));
  }

  private async recover(response: ServerResponse, taskNumber: number): Promise<void> {
    const actions = await recoverOpenRuns(this.config, taskNumber);
    const message =
      actions.length === 0 ? "nothing to recover" : actions.map((a) => `${a.action}: ${a.detail}`).join("; ");
    sendJson(response, 200, { actions, message });
  }

  close(): void {
    clearInterval(this.poll);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }
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
