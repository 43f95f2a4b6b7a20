import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { appendHookLog, hookLogPath } from "./log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("hook log", () => {
  it("creates .baton/logs with a .gitignore, appends one line per call, and rotates past the limit", () => {
    const root = mkdtempSync(join(tmpdir(), "baton-hook-log-"));
    dirs.push(root);
    const entry = { ts: "2026-11-22T00:00:00Z", event: "stop", decision: "allow", ms: 0.1 };
    appendHookLog(root, entry, 200);
    appendHookLog(root, { ...entry, decision: "block" }, 200);
    expect(readFileSync(join(root, ".baton", ".gitignore"), "utf8")).toBe("*\n!init.json\n!keys/\n!keys/*\n");
    expect(readFileSync(hookLogPath(root), "utf8").trim().split("\n")).toHaveLength(2);
    appendHookLog(root, { ...entry, decision: "deny" }, 200);
    expect(
      readFileSync(`${hookLogPath(root)}.1`, "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(2);
    expect(JSON.parse(readFileSync(hookLogPath(root), "utf8"))).toMatchObject({ decision: "deny" });
    expect(existsSync(`${hookLogPath(root)}.2`)).toBe(false);
  });
});
