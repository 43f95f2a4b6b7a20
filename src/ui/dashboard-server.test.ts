import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config/index.js";
import { appendEvent } from "../shared/event-stream.js";
import { readStatus } from "../status/index.js";
import { tempStore } from "../testing/store-fixture.js";
import { dashboard } from "./dashboard-server.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

/** The `status` frames /events pushes, as they arrive. */
function statusFrames(port: number): { frames: Array<{ results: Array<{ outcome: string }> }> } {
  const out = { frames: [] as Array<{ results: Array<{ outcome: string }> }> };
  const req = httpRequest({ host: "127.0.0.1", port, path: "/events" }, (response) => {
    let buffered = "";
    response.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const frames = buffered.split("\n\n");
      buffered = frames.pop() ?? "";
      for (const frame of frames) {
        const data = /^event: status\ndata: (.*)$/m.exec(frame)?.[1];
        if (data) out.frames.push(JSON.parse(data));
      }
    });
  });
  req.on("error", () => undefined);
  req.end();
  cleanups.push(() => req.destroy());
  return out;
}

describe("the dashboard's live pushes", () => {
  it("sends a result that lands while the status is being read, instead of counting it as sent", async () => {
    const store = await tempStore({ active: 1 });
    cleanups.push(store.cleanup);
    const config = await loadConfig(store.dir);
    let writeDuringRead: (() => void) | undefined;
    // A run that finishes just as the dashboard reads the status: its result is appended after the status is
    // read and before the poll ends.
    const board = dashboard(config, {
      readStatus: (...args) => {
        const view = readStatus(...args);
        writeDuringRead?.();
        writeDuringRead = undefined;
        return view;
      },
    });
    cleanups.push(() => board.close());
    const server: Server = createServer((req, res) => {
      void board.handle(req, res, new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => server.close());
    const stream = statusFrames((server.address() as AddressInfo).port);
    const event = (outcome: string) => ({
      kind: "operation" as const,
      task: 1,
      operation: "research",
      outcome,
    });
    await expect.poll(() => stream.frames.length, { timeout: 5000 }).toBeGreaterThan(0);
    writeDuringRead = () => appendEvent(store.dir, { ...event("done"), session: "sess_1700000000_abcdef" });
    appendEvent(store.dir, { ...event("started"), session: "sess_1700000000_abcdef" });
    await expect
      .poll(() => stream.frames.at(-1)?.results.map((r) => r.outcome), { timeout: 5000 })
      .toEqual(["done"]);
  });
});

describe("a task page with long artifacts", () => {
  it("shows each artifact's opening with a link, and the artifact whole on its own page", async () => {
    const store = await tempStore({ active: 1 });
    cleanups.push(store.cleanup);
    const statePath = join(store.dir, "specs", "state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8"));
    const task = state.active_projects[0];
    const report = "specs/big/reports/research-001.md";
    task.artifacts = [{ type: "research", path: report }];
    writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
    mkdirSync(join(store.dir, "specs/big/reports"), { recursive: true });
    const paragraphs = Array.from({ length: 2000 }, (_, k) => `Finding ${k}: ${"evidence ".repeat(12)}`);
    writeFileSync(join(store.dir, report), `# Research\n\n${paragraphs.join("\n\n")}\n\nThe last finding.\n`);
    const config = await loadConfig(store.dir);
    const board = dashboard(config);
    cleanups.push(() => board.close());
    const server: Server = createServer((req, res) => {
      void board.handle(req, res, new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = await (await fetch(`${base}/task/${task.project_number}`)).text();
    expect(page.length).toBeLessThan(40_000);
    expect(page).toContain("Finding 0:");
    expect(page).not.toContain("The last finding.");
    expect(page).toContain(`href="/task/${task.project_number}/artifact/0"`);
    const whole = await (await fetch(`${base}/task/${task.project_number}/artifact/0`)).text();
    expect(whole).toContain("The last finding.");
    expect((await fetch(`${base}/task/${task.project_number}/artifact/7`)).status).toBe(404);
  });
});
