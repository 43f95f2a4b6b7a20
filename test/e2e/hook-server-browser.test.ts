import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { BATON_BIN } from "../support/cli.js";
import { ok, repo, tempDir } from "./helpers.js";

/**
 * `baton serve` on 127.0.0.1 is reachable from every page the person's browser opens. Real Chromium tries
 * what a hostile page can: a cross-origin POST (no-cors and a form), and the same page reached again through
 * a host name that resolves to 127.0.0.1 (DNS rebinding: same origin as the server, so it may read replies).
 * None is decided, none logged, and no folder the input names gets a file.
 */
const CHROMIUM = [process.env["CHROMIUM_PATH"], "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (p): p is string => typeof p === "string" && existsSync(p),
);
requireUnderCi("Chromium (Debian package chromium)", CHROMIUM ? null : "no chromium binary found");

let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
  });
});
afterAll(async () => {
  await browser?.close();
});

function startServe(dir: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [BATON_BIN, "serve", "--port", "0"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`baton serve did not start: ${out}`)), 15_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const port = /127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve({ port: Number(port), child });
      }
    });
  });
}

/** A page on another origin that posts a hook input naming `victim` as its cwd, every way a page can. */
function attackPage(hookUrl: string, input: string): Promise<Server> {
  const html = `<!doctype html><body>
<form id="f" method="POST" action="${hookUrl}" enctype="text/plain" target="sink"><input name='${input.slice(0, -1)}' value='}'></form>
<iframe name="sink"></iframe>
<script>
  window.done = (async () => {
    const out = {};
    await fetch(${JSON.stringify(hookUrl)}, { method: "POST", mode: "no-cors", body: ${JSON.stringify(input)} }).catch(() => {});
    out.json = await fetch(${JSON.stringify(hookUrl)}, { method: "POST", headers: { "content-type": "application/json" }, body: ${JSON.stringify(input)} }).then((r) => r.status, (e) => String(e));
    document.getElementById("f").submit();
    await new Promise((r) => setTimeout(r, 500));
    return out;
  })();
</script></body>`;
  const server = createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(html);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe.skipIf(!CHROMIUM)("the hook server in a browser's reach", () => {
  it("decides nothing for a page on another origin, nor for one reached through a rebinding host name", async () => {
    const dir = repo();
    ok(dir, ["init", "--hooks", "http", "--host-sandbox", "off"]);
    const victim = tempDir("baton-victim-");
    const { port, child } = await startServe(dir);
    const page = await browser.newPage();
    try {
      const input = JSON.stringify({
        session_id: "s",
        hook_event_name: "PostToolUse",
        cwd: victim,
        tool_name: "Write",
        tool_input: { file_path: join(victim, "x") },
        tool_response: {},
      });
      const other = await attackPage(`http://127.0.0.1:${port}/hooks/post-tool-use`, input);
      await page.goto(`http://localhost:${(other.address() as { port: number }).port}/`);
      const crossOrigin = await page.evaluate(() => (window as unknown as { done: Promise<unknown> }).done);
      other.close();
      // Rebinding: a page of the server's own origin under another name (its host name now resolves to
      // 127.0.0.1), so its script may post JSON and read the replies.
      await page.goto(`http://rebind.test:${port}/health`);
      const rebound = await page.evaluate(
        async ([url, body]) => {
          const r = await fetch(url!, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          return { status: r.status, text: await r.text() };
        },
        [`http://rebind.test:${port}/hooks/post-tool-use`, input],
      );
      expect(crossOrigin).toMatchObject({ json: expect.stringContaining("TypeError") });
      expect(rebound.status).toBe(403);
      expect(existsSync(join(victim, ".baton"))).toBe(false);
      const log = join(dir, ".baton", "logs", "hooks.jsonl");
      const lines = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : [];
      expect(lines).toEqual([]);
    } finally {
      await page.close();
      child.kill("SIGTERM");
    }
    mkdirSync(victim, { recursive: true });
  });
});
