// The dashboard's first paint on a large repository, against bare `node -e 0`, measured side by side:
// (a) cold: `baton ui` started, the board's HTML fetched whole, the server stopped — what a person waits
//     for after typing `baton ui`; (b) warm: the board fetched from a running server; (c) when Debian's
//     Chromium is there, first-contentful-paint of the board in a real browser on a running server.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { BIN, DIST_GENERATOR, machine, median, numberFlag, QUICK, table, tempDir } from "./common.mjs";

const SIZE = QUICK ? { active: 1000, archived: 1000, runs: 5 } : { active: 10000, archived: 10000, runs: 11 };
SIZE.runs = numberFlag("runs", SIZE.runs);
const TARGET = 3;

function bare() {
  const start = process.hrtime.bigint();
  spawnSync(process.execPath, ["-e", "0"]);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function startUi(cwd) {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, "ui", "--port", "0"], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`baton ui exited ${code}: ${out}`)));
  });
  return { child, url, start };
}

async function fetchBoard(url) {
  const response = await fetch(`${url}/`);
  const html = await response.text();
  if (!html.includes("</html>")) throw new Error("the board's HTML was cut short");
  return html.length;
}

async function cold(cwd) {
  const { child, url, start } = await startUi(cwd);
  await fetchBoard(url);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  return ms;
}

console.log(
  `# Dashboard: ${SIZE.active} active + ${SIZE.archived} archived tasks, median of ${SIZE.runs} runs`,
);
console.log(`machine: ${machine()}\n`);
const repo = tempDir("ui");
try {
  const { generateRepo } = await import(DIST_GENERATOR);
  generateRepo({ dir: repo.dir, active: SIZE.active, archived: SIZE.archived, folders: false, seed: 13 });
  const first = await cold(repo.dir);
  const samples = { bare: [], cold: [], warm: [], fcp: [] };
  for (let i = 0; i < SIZE.runs; i++) {
    samples.bare.push(bare());
    samples.cold.push(await cold(repo.dir));
  }
  const server = await startUi(repo.dir);
  let bytes = 0;
  for (let i = 0; i < SIZE.runs; i++) {
    const start = process.hrtime.bigint();
    bytes = await fetchBoard(server.url);
    samples.warm.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const chromiumPath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
  if (chromiumPath) {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--disable-gpu"],
    });
    for (let i = 0; i < SIZE.runs; i++) {
      const page = await browser.newPage();
      await page.goto(`${server.url}/`, { waitUntil: "load" });
      const fcp = await page.evaluate(
        () =>
          new Promise((resolve) => {
            new PerformanceObserver((list) => {
              const entry = list.getEntriesByName("first-contentful-paint")[0];
              if (entry) resolve(entry.startTime);
            }).observe({ type: "paint", buffered: true });
            setTimeout(() => resolve(Number.NaN), 5000);
          }),
      );
      samples.fcp.push(fcp);
      await page.close();
    }
    await browser.close();
  }
  server.child.kill("SIGTERM");
  const b = median(samples.bare);
  const row = (name, values, target) => {
    const m = median(values);
    return [name, m.toFixed(0), (m / b).toFixed(2), target ? (m / b <= TARGET ? "PASS" : "FAIL") : ""];
  };
  const rows = [
    ["measure", "median ms", "x bare node", `target <= ${TARGET}x`],
    ["node -e 0 (bare node)", b.toFixed(0), "1.00", ""],
    row("baton ui start + board HTML (cold)", samples.cold, true),
    row("board HTML from a running server", samples.warm, true),
  ];
  if (samples.fcp.length > 0)
    rows.push(row("Chromium first-contentful-paint, running server", samples.fcp, true));
  console.log(table(rows));
  console.log(
    `\nboard page ${(bytes / 1024).toFixed(0)} KiB (${SIZE.active} tasks, at most 100 cards per status column); very first start, before the board cache existed: ${first.toFixed(0)} ms`,
  );
} finally {
  repo.cleanup();
}
