// Helpers shared by the benchmarks. They run against the built dist/ and bin/, never src/, so the
// figures are those of what users install.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = resolve(import.meta.dirname, "..");
export const BIN = join(ROOT, "bin", "baton.js");
export const DIST_INDEX = pathToFileURL(join(ROOT, "dist", "index.js")).href;
export const DIST_GENERATOR = pathToFileURL(join(ROOT, "dist", "testing", "generate-repo.js")).href;

export const QUICK = process.argv.includes("--quick");

/** `--name N` from the command line, for trying other sizes than the defaults. */
export function numberFlag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  const value = i === -1 ? Number.NaN : Number(process.argv[i + 1]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

export function machine() {
  const cpu = cpus()[0]?.model?.trim() ?? "unknown CPU";
  return `${cpus().length} CPU (${cpu}), node ${process.version}, ${process.platform}/${process.arch}`;
}

/**
 * A fresh directory under the OS temp dir. BATON_BENCH_KEEP=1 keeps it, to inspect the files a
 * benchmark left behind (e.g. the state.json the bash baseline corrupted).
 */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), `baton-bench-${prefix}-`));
  return {
    dir,
    cleanup: () => {
      if (process.env["BATON_BENCH_KEEP"]) console.log(`  (kept ${dir})`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Plain-text table; the first row is the header. */
export function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r) =>
    r
      .map((cell, c) => String(cell).padEnd(widths[c]))
      .join("  ")
      .trimEnd();
  return [line(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

/** Runs the real binary synchronously; big maxBuffer because `task list` on 10k tasks prints ~1 MB. */
export function runBaton(cwd, args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, ms };
}

/** Findings that mean state.json and TODO.md disagree, i.e. what the lock and journal exist to prevent. */
export const SYNC_FINDINGS = [
  "STATE_UNREADABLE",
  "TODO_UNREADABLE",
  "DUPLICATE_ACTIVE",
  "NEXT_NUMBER_LOW",
  "NEXT_NUMBER_MISMATCH",
  "TODO_ENTRY_MISSING",
  "TODO_ENTRY_EXTRA",
  "STATUS_MISMATCH",
  "INTERRUPTED_COMMIT",
  "STALE_LOCK",
];

/**
 * `baton doctor --json` through the real binary. MISSING_ARTIFACT warnings are expected: the
 * generator links artifact files it does not create when `folders` is false.
 */
export function doctorSyncFindings(cwd) {
  const result = runBaton(cwd, ["doctor", "--json"]);
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    return { ok: false, detail: `doctor printed no JSON (exit ${result.status}): ${result.stderr.trim()}` };
  }
  const bad = report.findings.filter((f) => SYNC_FINDINGS.includes(f.code) || f.severity === "error");
  const detail = bad.length === 0 ? "no sync findings" : bad.map((f) => `${f.code}: ${f.message}`).join("; ");
  return { ok: bad.length === 0, detail, count: bad.length };
}
