import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { TestCounts } from "../../evidence/index.js";
import { present } from "../../shared/present.js";
import { goJsonCounts, jestJsonCounts, type ReportFormat, tapCounts } from "./report-formats.js";

/**
 * How many tests a check ran, from its runner's own machine-readable report rather than its exit code.
 * Baton asks the runners it can reach through the environment for a JUnit report in a folder of its own
 * (node's test runner through NODE_OPTIONS, pytest through PYTEST_ADDOPTS); any other runner names the
 * JUnit file it writes (`report` of the check). Every JUnit report is read the same way.
 */
export interface ReportCapture {
  env: NodeJS.ProcessEnv;
  /** Files the check's processes load and may not change (bound read-only in its sandbox). */
  held: string[];
  /** The counts of every report the check left (or of its output, for a format read from it); null when none. */
  read(output: string): TestCounts | null;
  /** Each test its JUnit reports name, with its outcome; null when it left none (or reports in another format). */
  tests(): ReportedTest[] | null;
  dispose(): void;
}

const PARSERS: Record<Exclude<ReportFormat, "junit">, (text: string) => TestCounts | null> = {
  tap: tapCounts,
  "jest-json": jestJsonCounts,
  "go-json": goJsonCounts,
};

function appended(current: string | undefined, added: string): string {
  return current ? `${current} ${added}` : added;
}

/**
 * `commands`: what the check runs (its npm scripts followed); a node test run that names its own reporters
 * is left alone, since node refuses reporters and destinations that do not pair up.
 */
export function captureReports(
  cwd: string,
  configured: string | null,
  commands: readonly string[],
  format: ReportFormat = "junit",
): ReportCapture {
  const dir = mkdtempSync(join(tmpdir(), "baton-check-report-"));
  const held = holdAssert(dir);
  const env: NodeJS.ProcessEnv = {
    PYTEST_ADDOPTS: appended(process.env["PYTEST_ADDOPTS"], `--junitxml=${join(dir, "pytest.xml")}`),
    NODE_OPTIONS: appended(process.env["NODE_OPTIONS"], `--require "${held}"`),
  };
  if (!commands.some((c) => c.includes("--test-reporter"))) {
    // node --test keeps readable output on stdout and writes JUnit beside it.
    env["NODE_OPTIONS"] = appended(
      env["NODE_OPTIONS"],
      `--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=${join(dir, "node.xml")}`,
    );
  }
  const configuredPath =
    configured === null ? null : isAbsolute(configured) ? configured : join(cwd, configured);
  return {
    env,
    held: [held],
    read: (output) => {
      if (format !== "junit") {
        const text = configuredPath
          ? present(configuredPath)
            ? readFileSync(configuredPath, "utf8")
            : ""
          : output;
        return PARSERS[format](text);
      }
      const files = reportFiles(dir);
      if (configuredPath && present(configuredPath)) files.push(configuredPath);
      const counts = files.map((f) => junitCounts(readFileSync(f, "utf8"))).filter((c) => c !== null);
      return counts.length === 0 ? null : counts.reduce(addCounts);
    },
    tests: () => {
      if (format !== "junit") return null;
      const files = reportFiles(dir);
      if (configuredPath && present(configuredPath)) files.push(configuredPath);
      const reported = files.map((f) => junitTests(readFileSync(f, "utf8"))).filter((t) => t !== null);
      return reported.length === 0 ? null : reported.flat();
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * node's assertion library as node made it: loaded before any of the check's code (NODE_OPTIONS
 * `--require`), every property of `node:assert` and `node:assert/strict` made unwritable, so code under test
 * that replaces `assert.equal` with a function that passes everything fails to (a test suite may still add
 * assertions of its own). Written beside the check's reports, outside any tree the check runs in.
 */
const HOLD_ASSERT = `"use strict";
const assert = require("node:assert");
for (const target of [assert, assert.strict]) {
  for (const key of Reflect.ownKeys(target)) {
    const held = Object.getOwnPropertyDescriptor(target, key);
    try {
      Object.defineProperty(target, key, "value" in held ? { writable: false, configurable: false } : { configurable: false });
    } catch {}
  }
}
`;

/** The reports the runners wrote in Baton's folder (the assertion hold beside them is not one). */
function reportFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".xml"))
    .map((f) => join(dir, f));
}

function holdAssert(dir: string): string {
  const file = join(dir, "hold-assert.cjs");
  writeFileSync(file, HOLD_ASSERT, { mode: 0o444 });
  return file;
}

export function addCounts(a: TestCounts, b: TestCounts): TestCounts {
  return {
    tests: a.tests + b.tests,
    passed: a.passed + b.passed,
    failed: a.failed + b.failed,
    skipped: a.skipped + b.skipped,
    todo: a.todo + b.todo,
  };
}

/**
 * The counts of a JUnit XML report: each `<testcase>` is a test; one holding `<failure>` or `<error>`
 * failed, one holding `<skipped>` was skipped (a `TODO` message: todo). A file that is not a complete
 * report (no closing root element) counts as none.
 */
export function junitCounts(xml: string): TestCounts | null {
  const tests = junitTests(xml);
  if (tests === null) return null;
  const counts: TestCounts = { tests: 0, passed: 0, failed: 0, skipped: 0, todo: 0 };
  for (const test of tests) {
    counts.tests++;
    counts[test.outcome]++;
  }
  return counts;
}

export interface ReportedTest {
  /** What identifies the test in its runner's report: its class (pytest's module) and its name. */
  id: string;
  outcome: "passed" | "failed" | "skipped" | "todo";
}

/** Each `<testcase>` of a complete JUnit report, with what became of it; null for an incomplete report. */
export function junitTests(xml: string): ReportedTest[] | null {
  if (!/<\/testsuites>|<\/testsuite>/.test(xml)) return null;
  const tests: ReportedTest[] = [];
  for (const match of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attributes = match[1] ?? "";
    const body = match[3] ?? "";
    const attribute = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1] ?? "";
    const id = `${attribute("classname")} ${attribute("name")}`;
    if (/<(failure|error)\b/.test(body)) tests.push({ id, outcome: "failed" });
    else if (/<skipped\b[^>]*(type="todo"|message="TODO)/i.test(body)) tests.push({ id, outcome: "todo" });
    else if (/<skipped\b/.test(body)) tests.push({ id, outcome: "skipped" });
    else tests.push({ id, outcome: "passed" });
  }
  return tests;
}
