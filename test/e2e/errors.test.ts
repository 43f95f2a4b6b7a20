import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  expectSpecsUnchanged,
  generatedRepo,
  ok,
  okJson,
  oneTaskRepo,
  repo,
  runAll,
  runBaton,
  snapshotSpecs,
  write,
} from "./helpers.js";

interface Spec {
  id: string;
  timestamp: string;
  type: string;
  severity: string;
  task: number | string | null;
  checkpoint: string;
  session: string;
  fix?: string;
}

const ENTRIES: Spec[] = [
  {
    id: "err_1",
    timestamp: "2026-01-22T01:01:50Z",
    type: "git_commit_failure",
    severity: "high",
    task: 672,
    checkpoint: "COMMIT",
    session: "sess_1769043708_tq9iv",
  },
  {
    id: "err_2",
    timestamp: "2026-02-03T10:00:00Z",
    type: "timeout",
    severity: "medium",
    task: 680,
    checkpoint: "DELEGATE",
    session: "sess_1770112800_a1b2c3",
    fix: "fixed",
  },
  {
    id: "err_3",
    timestamp: "2026-03-16T09:30:00Z",
    type: "git_commit_failure",
    severity: "low",
    task: "680",
    checkpoint: "COMMIT",
    session: "sess_1773653400_0f0f0f",
  },
  {
    id: "err_4",
    timestamp: "2026-03-01T12:00:00Z",
    type: "validation_failed",
    severity: "critical",
    task: null,
    checkpoint: "GATE_IN",
    session: "sess_1772366400_ffffff",
    fix: "in_progress",
  },
  {
    id: "err_5",
    timestamp: "2026-02-20T08:00:00Z",
    type: "git_commit_failure",
    severity: "high",
    task: 680,
    checkpoint: "GATE_OUT",
    session: "sess_1771574400_123456",
  },
];

/** errors.json in the schema-2.0.0 shape, hand-formatted like the original (compact context objects). */
function errorsJson(entries: readonly Spec[]): string {
  const body = entries.map((e) =>
    [
      "    {",
      `      "id": "${e.id}",`,
      `      "timestamp": "${e.timestamp}",`,
      `      "type": "${e.type}",`,
      `      "severity": "${e.severity}",`,
      `      "message": "Message of ${e.id}",`,
      `      "context": {"session_id": "${e.session}", "command": "plan", "task": ${JSON.stringify(e.task)}, "phase": 2, "checkpoint": "${e.checkpoint}"},`,
      '      "recovery": {"suggested_action": "retry", "auto_recoverable": true},',
      `      "fix_status": "${e.fix ?? "unfixed"}", "fixed_date": null, "fix_task": null, "recurrence_count": 1`,
      "    }",
    ].join("\n"),
  );
  return `{\n  "_schema_version": "2.0.0",\n  "_comment": "Centralized error tracking",\n  "errors": [\n${body.join(",\n")}\n  ],\n  "aggregations": {"by_type": {}, "by_session": {}, "by_task": {}}\n}\n`;
}

function fixture(): string {
  const { dir } = generatedRepo({ active: 5, archived: 0 });
  write(dir, "errors.json", errorsJson(ENTRIES));
  return dir;
}

describe("errors", () => {
  it("lists every entry newest first, with the raw entries in --json", () => {
    const dir = fixture();
    const result = okJson(dir, ["errors"]);
    expect(result.total).toBe(5);
    expect(result.errors.map((e: { id: string }) => e.id)).toEqual([
      "err_3",
      "err_4",
      "err_5",
      "err_2",
      "err_1",
    ]);
    expect(result.errors[4]).toEqual({
      id: "err_1",
      timestamp: "2026-01-22T01:01:50Z",
      type: "git_commit_failure",
      severity: "high",
      message: "Message of err_1",
      context: {
        session_id: "sess_1769043708_tq9iv",
        command: "plan",
        task: 672,
        phase: 2,
        checkpoint: "COMMIT",
      },
      recovery: { suggested_action: "retry", auto_recoverable: true },
      fix_status: "unfixed",
      fixed_date: null,
      fix_task: null,
      recurrence_count: 1,
    });
  });

  /** Runs every query at once and compares the ids each returns. */
  async function expectQueries(dir: string, table: Array<[string[], string[]]>): Promise<void> {
    const results = await runAll(
      dir,
      table.map(([args]) => ["errors", ...args, "--json"]),
    );
    const got = results.map((r, i) => {
      expect(r.status, `errors ${table[i]![0].join(" ")}: ${r.stderr}`).toBe(0);
      return [table[i]![0], JSON.parse(r.stdout).errors.map((e: { id: string }) => e.id)];
    });
    expect(got).toEqual(table);
  }

  it("filters by --type, --task, --severity and --limit, alone and combined", async () => {
    const dir = fixture();
    await expectQueries(dir, [
      [
        ["--type", "git_commit_failure"],
        ["err_3", "err_5", "err_1"],
      ],
      [["--type", "build_error"], []],
      // A task number stored as a string ("680") matches too.
      [
        ["--task", "680"],
        ["err_3", "err_5", "err_2"],
      ],
      [
        ["--severity", "high"],
        ["err_5", "err_1"],
      ],
      [
        ["--limit", "2"],
        ["err_3", "err_4"],
      ],
      [["--type", "git_commit_failure", "--task", "680", "--limit", "1"], ["err_3"]],
      [["--type", "git_commit_failure", "--severity", "high", "--task", "672"], ["err_1"]],
    ]);
    expect(okJson(dir, ["errors", "--limit", "1"]).total).toBe(5);
  });

  it("filters by --checkpoint, --fix-status, --session and --since", async () => {
    const dir = fixture();
    await expectQueries(dir, [
      [
        ["--checkpoint", "COMMIT"],
        ["err_3", "err_1"],
      ],
      [
        ["--fix-status", "unfixed"],
        ["err_3", "err_5", "err_1"],
      ],
      [["--fix-status", "fixed"], ["err_2"]],
      [["--session", "sess_1771574400_123456"], ["err_5"]],
      [
        ["--since", "2026-02-20T08:00:00Z"],
        ["err_3", "err_4", "err_5"],
      ],
    ]);
  });

  it("prints a readable list and never writes", () => {
    const dir = fixture();
    const before = snapshotSpecs(dir);
    expect(ok(dir, ["errors", "--task", "680", "--severity", "high"]).stdout).toBe(
      [
        "2026-02-20T08:00:00Z  high     git_commit_failure  [unfixed]  task 680 · GATE_OUT · sess_1771574400_123456",
        "    Message of err_5",
        "",
        "1 of 5 shown.",
        "",
      ].join("\n"),
    );
    expect(ok(dir, ["errors", "--type", "nope"]).stdout).toBe("No matching errors (5 in errors.json).\n");
    expectSpecsUnchanged(dir, before);
  });

  it("--task 0 matches task 0 only, not entries without a task", () => {
    const dir = fixture();
    // err_4 has "task": null; task 0 is a real number in archives (numbers start at 0).
    expect(okJson(dir, ["errors", "--task", "0"]).errors.map((e: { id: string }) => e.id)).toEqual([]);
  });

  it("rejects bad filter values with a usage error", async () => {
    const dir = fixture();
    const results = await runAll(dir, [
      ["errors", "--limit", "0"],
      ["errors", "--limit", "two"],
      ["errors", "--task", "abc"],
    ]);
    expect(results.map((r) => r.status)).toEqual([2, 2, 2]);
    expect(results[0]!.stderr).toContain("--limit must be a positive integer");
    expect(results[1]!.stderr).toContain("--limit must be a positive integer");
    expect(results[2]!.stderr).toContain('--task "abc" is not a number');
  });

  it("reads the generator's errors.json and copes with a repository that has none", () => {
    const { dir, gen } = generatedRepo({ active: 3, archived: 0 });
    const result = okJson(dir, ["errors", "--task", String(gen.activeNumbers[0])]);
    expect(result.total).toBe(1);
    expect(result.errors.map((e: { id: string; type: string }) => [e.id, e.type])).toEqual([
      ["err_1736969700000", "git_commit_failure"],
    ]);
    const empty = repo();
    // No store at all is nothing to list from; a store without errors.json lists none.
    expect(runBaton(empty, ["errors"]).status).toBe(3);
    ok(empty, ["task", "add", "First task"]);
    expect(ok(empty, ["errors"]).stdout).toBe("No matching errors (0 in errors.json).\n");
  });
});

describe("a failure under --json", () => {
  it("is JSON on stdout with its stable code, for a missing task, a bad flag value and a broken store alike", () => {
    const dir = oneTaskRepo();
    const missing = runBaton(dir, ["task", "show", "999", "--json"]);
    expect(missing.status).not.toBe(0);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, error: { code: "TASK_NOT_FOUND" } });
    const status = runBaton(dir, ["task", "status", "1", "no-such-status", "--json"]);
    expect(status.status).not.toBe(0);
    expect(JSON.parse(status.stdout).error.code).toMatch(/^[A-Z_]+$/);
    writeFileSync(join(dir, "specs", "state.json"), "{ not json");
    const broken = runBaton(dir, ["task", "list", "--json"]);
    expect(broken.status).not.toBe(0);
    expect(JSON.parse(broken.stdout).error).toMatchObject({ code: expect.stringMatching(/^[A-Z_]+$/) });
  });
});
