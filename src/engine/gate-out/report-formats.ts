import type { ReportFormat } from "../../config/index.js";
import type { TestCounts } from "../../evidence/index.js";

/**
 * The machine-readable reports Baton reads besides JUnit: TAP (node's `tap` reporter, tape, prove …),
 * jest's and vitest's JSON, and `go test -json`. Each parser returns null for a report that is not
 * complete, which GATE OUT treats as no report at all.
 */
export type { ReportFormat };

const empty = (): TestCounts => ({ tests: 0, passed: 0, failed: 0, skipped: 0, todo: 0 });

/** TAP: `ok` / `not ok` lines (at any indentation: subtests count too), `# SKIP` / `# TODO` directives, a plan `1..N`. */
export function tapCounts(text: string): TestCounts | null {
  if (!/^\s*1\.\.\d+/m.test(text)) return null;
  const counts = empty();
  for (const match of text.matchAll(/^(\s*)(not ok|ok)\b[^\n#]*(#\s*(SKIP|TODO)\b)?/gim)) {
    // Only top-level results: a subtest's line is summarised by its parent's.
    if (match[1] !== "") continue;
    counts.tests++;
    const directive = match[4]?.toUpperCase();
    if (directive === "SKIP") counts.skipped++;
    else if (directive === "TODO") counts.todo++;
    else if (match[2]!.toLowerCase() === "not ok") counts.failed++;
    else counts.passed++;
  }
  return counts;
}

/** jest `--json` / vitest `--reporter=json`: the totals of the run. */
export function jestJsonCounts(text: string): TestCounts | null {
  const start = text.indexOf("{");
  if (start === -1) return null;
  try {
    const r = JSON.parse(text.slice(start)) as Record<string, unknown>;
    const n = (key: string) => (typeof r[key] === "number" ? (r[key] as number) : 0);
    if (typeof r["numTotalTests"] !== "number") return null;
    return {
      tests: n("numTotalTests"),
      passed: n("numPassedTests"),
      failed: n("numFailedTests"),
      skipped: n("numPendingTests"),
      todo: n("numTodoTests"),
    };
  } catch {
    return null;
  }
}

/** `go test -json`: one event per line; a test's last pass/fail/skip is its result; complete once a package ends. */
export function goJsonCounts(text: string): TestCounts | null {
  const results = new Map<string, string>();
  let ended = false;
  for (const line of text.split("\n")) {
    let event: { Action?: string; Package?: string; Test?: string };
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (!event.Action) continue;
    if (!event.Test) {
      if (event.Action === "pass" || event.Action === "fail") ended = true;
      continue;
    }
    if (["pass", "fail", "skip"].includes(event.Action))
      results.set(`${event.Package}\0${event.Test}`, event.Action);
  }
  if (!ended) return null;
  const counts = empty();
  for (const action of results.values()) {
    counts.tests++;
    if (action === "pass") counts.passed++;
    else if (action === "fail") counts.failed++;
    else counts.skipped++;
  }
  return counts;
}
