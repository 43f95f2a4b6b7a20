import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePlan, layeredPlanPhases } from "../../src/testing/generate-plan.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { BATON_BIN } from "../support/cli.js";
import { generatedRepo, ok, okJson, plannedTaskRepo, readJson, scriptFile } from "./helpers.js";

/**
 * `baton ui` in real headless Chromium (Debian's, driven by playwright-core): the board of a generated
 * repository, a live operation that appears and finishes without a reload, a task page with its
 * artifact rendered and agent-written HTML kept inert. Screenshots go to test-output/screenshots/.
 */
const CHROMIUM = [process.env["CHROMIUM_PATH"], "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (p): p is string => typeof p === "string" && existsSync(p),
);
requireUnderCi("Chromium (Debian package chromium)", CHROMIUM ? null : "no chromium binary found");
const SHOTS = resolve(import.meta.dirname, "../../test-output/screenshots");

let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) return;
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
});
afterAll(async () => {
  await browser?.close();
});

async function startUi(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BATON_BIN, "ui", "--port", "0"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`baton ui did not start: ${out}`)), 15_000);
    const seen = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]!);
      }
    };
    child.stdout!.on("data", seen);
    child.stderr!.on("data", seen);
  });
  return { url, child };
}

/** Stopped and gone: the temp repository is removed after this, and a server still writing its logs would race it. */
async function stopUi(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

const REPORT = [
  "# Research Report: the lexer",
  "",
  "## Findings",
  "- The lexer drops the **last token** at `src/lexer.ts:42`.",
  '<img src="x" onerror="document.body.dataset.pwned = 1">',
  "<script>document.body.dataset.pwned = 1</script>",
  "[a trap](javascript:document.body.dataset.pwned=1)",
  "",
  "More findings follow, with evidence for each of them and the lines they concern in the parser.",
].join("\n");

describe.skipIf(!CHROMIUM)("baton ui in Chromium", () => {
  it("shows the board, a live operation from start to end without a reload, and the task page", async () => {
    const { dir, gen } = generatedRepo({ active: 24, archived: 6, folders: false, seed: 5 });
    const { url, child } = await startUi(dir);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await page.goto(`${url}/`);
      await page.waitForSelector("#live.on");
      const counts = await page.$$eval(".column", (columns) =>
        columns.map((c) => Number(c.querySelector(".count")?.textContent ?? "0")),
      );
      expect(counts.reduce((a, b) => a + b, 0)).toBe(24);
      expect(await page.textContent("body")).toContain("24 active, 6 archived");
      const notStarted = readJson(dir, "state.json").active_projects.find(
        (t: { status: string }) => t.status === "not_started",
      ).project_number as number;
      expect(
        await page.$(`.column[data-status="not_started"] .card[data-task="${notStarted}"]`),
      ).not.toBeNull();
      await page.screenshot({ path: join(SHOTS, "board.png"), fullPage: true });

      // A live operation: it shows up as running, then finishes, and its card moves; no reload.
      await page.evaluate(() => {
        (window as unknown as { sameDocument: boolean }).sameDocument = true;
      });
      const slow = scriptFile(dir, "slow.json", [
        { spend: { costUsd: 0.03, inputTokens: 500, outputTokens: 100 } },
        { sleepMs: 2500 },
        { write: "{task_folder}/reports/research-001.md", content: REPORT },
        {
          writeMetadata: {
            status: "researched",
            summary: "found it",
            artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md" }],
            metadata: { session_id: "{session_id}", agent_type: "scripted" },
          },
        },
      ]);
      const run = spawn(process.execPath, [BATON_BIN, "research", String(notStarted), "--script", slow], {
        cwd: dir,
        stdio: "ignore",
      });
      await page.waitForSelector(`#running-body tr[data-session] a[href="/task/${notStarted}"]`, {
        timeout: 15_000,
      });
      await page.screenshot({ path: join(SHOTS, "board-running.png"), fullPage: true });
      await new Promise((r) => run.once("exit", r));
      await page.waitForSelector(`.column[data-status="researched"] .card[data-task="${notStarted}"]`, {
        timeout: 15_000,
      });
      await page.waitForFunction(() =>
        document.querySelector("#running-body")?.textContent?.includes("Nothing is running"),
      );
      expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
        true,
      );
      // The card moves at the store write that records the outcome; the result is appended after the commit,
      // so a poll between the two shows the moved card first and the result with the next poll.
      await page.waitForFunction(
        () =>
          document.querySelector("#results-body")?.textContent?.includes("done") &&
          document.querySelector("#costs-body")?.textContent?.includes("$0.0300"),
        undefined,
        { timeout: 15_000 },
      );
      await page.screenshot({ path: join(SHOTS, "board-finished.png"), fullPage: true });

      // The task page: the report as Markdown; the agent's HTML and javascript: link stay inert.
      await page.goto(`${url}/task/${notStarted}`);
      expect(await page.textContent(".markdown h1")).toBe("Research Report: the lexer");
      expect(await page.textContent(".markdown strong")).toBe("last token");
      expect(await page.$(".markdown img")).toBeNull();
      expect(await page.$(".markdown script")).toBeNull();
      expect(await page.$('.markdown a[href^="javascript"]')).toBeNull();
      expect(await page.evaluate(() => document.body.dataset["pwned"])).toBeUndefined();
      expect(await page.textContent("body")).toContain("Sessions and checkpoints");
      expect(await page.textContent("body")).toMatch(/evidence\/sess_\d+_[0-9a-f]{6}-research\.json/);
      await page.screenshot({ path: join(SHOTS, "task.png"), fullPage: true });
      expect(gen.activeNumbers).toContain(notStarted);
    } finally {
      await page.close();
      await stopUi(child);
    }
  }, 90_000);

  it("is readable at 800, 1400 and 1920 px: nothing overflows its panel, panels never overlap", async () => {
    const { dir, gen } = generatedRepo({ active: 12, archived: 2, folders: false, seed: 3 });
    const [first, second] = gen.activeNumbers as number[];
    ok(dir, [
      "task",
      "edit",
      String(first),
      "--depends",
      String(second),
      "--priority",
      "high",
      "--effort",
      "3 hours",
    ]);
    // A title as agents write them: one unbroken identifier longer than any card.
    ok(dir, [
      "task",
      "add",
      `Fix ${"Metalogic.Bimodal.StagedConstruction.DovetailedTimelineQuotBFMCS".repeat(2)}`,
    ]);
    // What long real output looks like: unbroken paths, session ids and error text in every table.
    const long = `GATE_OUT refused: ${"specs/123_a_very_long_task_folder_name/reports/".repeat(4)}01_research.md is ${"x".repeat(180)}`;
    const lines: string[] = [];
    for (let i = 0; i < 12; i++) {
      const base = {
        ts: new Date(Date.UTC(2026, 10, 1, 10, i)).toISOString(),
        session: `sess_17000000${String(i).padStart(2, "0")}_abcdef`,
        task: gen.activeNumbers[i % 12],
        operation: "research",
      };
      lines.push(
        JSON.stringify({
          ...base,
          kind: "operation",
          outcome: "failed",
          code: "GATE_OUT_REFUSED",
          message: long,
        }),
      );
      lines.push(
        JSON.stringify({ ...base, kind: "gate", outcome: "refused", code: "CHECKS_TAMPERED", message: long }),
      );
      lines.push(
        JSON.stringify({ ...base, kind: "agent", costUsd: 0.0123, tokensIn: 9000, tokensOut: 1200 }),
      );
    }
    mkdirSync(join(dir, ".baton", "events"), { recursive: true });
    writeFileSync(join(dir, ".baton", "events", "events.jsonl"), `${lines.join("\n")}\n`);
    const { url, child } = await startUi(dir);
    try {
      for (const width of [800, 1400, 1920]) {
        const page = await browser.newPage({ viewport: { width, height: 1000 } });
        try {
          for (const [path, name] of [
            ["/", "board"],
            [`/task/${first}`, "task"],
          ] as const) {
            await page.goto(`${url}${path}`);
            await page.waitForSelector("#live.on");
            const layout = await page.evaluate(() => {
              // A table that must be scrolled sideways to be read counts as overflowing too.
              const overflowing = [...document.querySelectorAll<HTMLElement>(".panel, .panel .scroll")]
                .filter((p) => p.scrollWidth > p.clientWidth + 1)
                .map((p) => p.querySelector("h2")?.textContent ?? p.id);
              const rects = [...document.querySelectorAll<HTMLElement>(".cols > .panel")].map((p) =>
                p.getBoundingClientRect(),
              );
              const overlaps = rects.some((a, i) =>
                rects.some(
                  (b, j) =>
                    j > i &&
                    a.left < b.right - 1 &&
                    b.left < a.right - 1 &&
                    a.top < b.bottom - 1 &&
                    b.top < a.bottom - 1,
                ),
              );
              // Every column of the board in view (none behind a sideways scroll), no card wider than itself.
              const hiddenColumns = [...document.querySelectorAll<HTMLElement>(".column")]
                .filter((c) => c.getBoundingClientRect().right > window.innerWidth + 1)
                .map((c) => c.dataset["status"]);
              const wideCards = [...document.querySelectorAll<HTMLElement>(".card")]
                .filter((c) => c.scrollWidth > c.clientWidth + 1)
                .map((c) => c.dataset["task"]);
              return {
                hiddenColumns,
                wideCards,
                overflowing,
                overlaps,
                pageWidth: document.documentElement.scrollWidth,
                innerWidth: window.innerWidth,
              };
            });
            expect(layout.overflowing, `${name} at ${width}px`).toEqual([]);
            expect(layout.hiddenColumns, `${name} at ${width}px`).toEqual([]);
            expect(layout.wideCards, `${name} at ${width}px`).toEqual([]);
            expect(layout.overlaps, `${name} at ${width}px`).toBe(false);
            expect(layout.pageWidth, `${name} at ${width}px`).toBeLessThanOrEqual(layout.innerWidth);
            await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
          }
          // The task page: what a person plans by, and the way back.
          const facts = await page.textContent("#task-facts");
          expect(facts).toContain(`depends on #${second}`);
          expect(facts).toContain("priority high");
          expect(facts).toContain("effort 3 hours");
          await page.click(`#task-facts a[href="/task/${second}"]`);
          await page.waitForSelector(`body[data-task="${second}"]`);
          await page.click("p.back a");
          await page.waitForSelector("#board");
        } finally {
          await page.close();
        }
      }
    } finally {
      await stopUi(child);
    }
  }, 90_000);

  it("works with no network: every request the page makes goes to the dashboard itself", async () => {
    const { dir, gen } = generatedRepo({ active: 5, archived: 0, folders: false, seed: 9 });
    const planned = gen.nextNumber;
    ok(dir, ["task", "add", "Build the parser"]);
    ok(dir, ["task", "status", String(planned), "planned", "--force"]);
    const folder = join(dir, "specs", `${planned}_build_the_parser`, "plans");
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, "implementation-001.md"),
      generatePlan({
        style: "task",
        taskNumber: planned,
        title: "Build the parser",
        phases: layeredPlanPhases(2, 2),
      }),
    );
    const plan = okJson(dir, ["plan", "show", String(planned), "--json"]);
    const { url, child } = await startUi(dir);
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    try {
      await page.goto(`${url}/`);
      await page.waitForSelector("#live.on");
      expect(requested.length).toBeGreaterThan(0);
      expect(requested.filter((r) => !r.startsWith(url))).toEqual([]);
      // A planned task's page shows its plan: each phase with its wave and state.
      await page.goto(`${url}/task/${planned}`);
      const rows = await page.$$eval(".phases tr", (trs) => trs.slice(1).map((tr) => tr.textContent ?? ""));
      expect(rows).toHaveLength(plan.phases.length);
      expect(rows[0]).toContain(plan.phases[0].name);
      expect(rows[2]).toMatch(/Step 2\.1\s*2/);
      await page.screenshot({ path: join(SHOTS, "task-plan.png"), fullPage: true });
    } finally {
      await page.close();
      await stopUi(child);
    }
  }, 60_000);

  it("answers for a plan from its page: rendered, with what changed since approval; no other origin can", async () => {
    const dir = plannedTaskRepo(layeredPlanPhases(2, 1), { approvals: { implement: "plan" } });
    ok(dir, ["approve", "1"]);
    const planPath = join(dir, "specs/1_build_the_parser/plans/implementation-001.md");
    writeFileSync(planPath, readFileSync(planPath, "utf8").replace("Step 2.1", "Step 2.1 and the migration"));
    const { url, child } = await startUi(dir);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const other = createServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end("<!doctype html><p>elsewhere</p>");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      // A page of another origin: without the token nothing is recorded, and it cannot read the token.
      await page.goto(`http://localhost:${(other.address() as { port: number }).port}/`);
      const attempts = await page.evaluate(async (target) => {
        const body = JSON.stringify({ sha256: "x" });
        const blind = await fetch(target, { method: "POST", mode: "no-cors", body }).then(
          () => "sent",
          String,
        );
        const json = await fetch(target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }).then((r) => String(r.status), String);
        const token = await fetch(target.replace(/api.*/, "task/1")).then((r) => r.text(), String);
        return { blind, json, token };
      }, `${url}/api/approve/1`);
      expect(attempts.json).toContain("TypeError");
      expect(attempts.token).toContain("TypeError");
      expect(ok(dir, ["approvals"]).stdout).toContain("changed since it was approved");
      const forged = await fetch(`${url}/api/approve/1`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-baton-token": "guess" },
        body: JSON.stringify({ sha256: "x" }),
      });
      expect(forged.status).toBe(403);

      // The board lists what waits for a person, linked to the task's page.
      await page.goto(`${url}/`);
      expect(await page.textContent("#waiting-plans")).toContain("changed since approved: waits for you");
      await page.click('#waiting-plans a[href="/task/1"]');
      expect(await page.getAttribute("#approval", "data-standing")).toBe("stale");
      expect(await page.textContent("#plan-diff")).toContain("+ ### Phase 2: Step 2.1 and the migration");
      expect(await page.textContent("#plan-diff")).toContain("- ### Phase 2: Step 2.1 [NOT STARTED]");
      expect(await page.$eval("#plan-text h1", (h) => h.textContent)).toContain("Implementation Plan");
      await page.click('button[data-answer="reject"]');
      expect(await page.textContent("#answer-result")).toContain("Say why");
      await page.screenshot({ path: join(SHOTS, "task-approval.png"), fullPage: true });
      await page.click('button[data-answer="approve"]');
      await page.waitForSelector("body[data-answered]");
      expect(await page.textContent("#answer-result")).toContain("Approved as Baton Test <test@example.com>");
      expect(ok(dir, ["approvals"]).stdout).toContain("No plan waits for approval.");
      expect(readJson(dir, "state.json").active_projects[0].plan_approval).toMatchObject({
        verdict: "approved",
        sha256: createHash("sha256").update(readFileSync(planPath)).digest("hex"),
      });
    } finally {
      other.close();
      await page.close();
      await stopUi(child);
    }
  }, 60_000);
});
