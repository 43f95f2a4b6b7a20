import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../config/index.js";
import { checksFor, describeFailedChecks, runChecks } from "./project-checks.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("project checks", () => {
  it("picks checks by where the work ends and the task's language", () => {
    const config = resolveConfig("/r", null, {
      checks: [
        { name: "all", run: "true" },
        { name: "lean", run: "lake build", languages: ["lean"], when: "phase" },
        { name: "end", run: "npm test", when: "operation" },
      ],
    });
    expect(checksFor(config, "lean", "phase").map((c) => c.name)).toEqual(["all", "lean"]);
    expect(checksFor(config, "general", "phase").map((c) => c.name)).toEqual(["all"]);
    expect(checksFor(config, "lean", "operation").map((c) => c.name)).toEqual(["all", "end"]);
  });

  it("runs every check in the work tree and reports each failure with its command, exit code and last lines", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-checks-"));
    writeFileSync(join(dir, "flag.txt"), "off\n");
    const config = resolveConfig(dir, null, {
      checks: [
        { name: "flag", run: "grep -qx on flag.txt" },
        { name: "loud", run: "for i in $(seq 1 30); do echo line $i; done; exit 4" },
        { name: "fine", run: "test -f flag.txt" },
      ],
    });
    const runs = await runChecks(config.checks, dir);
    expect(runs.map((r) => [r.name, r.ok, r.exitCode])).toEqual([
      ["flag", false, 1],
      ["loud", false, 4],
      ["fine", true, 0],
    ]);
    expect(runs[1]!.tail).toHaveLength(20);
    expect(runs[1]!.tail.at(-1)).toBe("line 30");
    const message = describeFailedChecks(runs);
    expect(message).toContain('check "flag" (`grep -qx on flag.txt`) failed: exit code 1');
    expect(message).toContain('check "loud"');
    expect(message).not.toContain('check "fine"');
  });
});
