import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeDeadRunsFiles, withPrivateFiles } from "./private-file.js";

const dir = mkdtempSync(join(tmpdir(), "baton-private-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("private files for an agent's run", () => {
  it("are readable by this user only and gone when the run settles, even when it throws", async () => {
    let seen = "";
    await expect(
      withPrivateFiles(async (files) => {
        seen = files.write("agent.json", '{"x":1}');
        expect(readFileSync(seen, "utf8")).toBe('{"x":1}');
        expect(statSync(seen).mode & 0o777).toBe(0o600);
        expect(statSync(join(seen, "..")).mode & 0o777).toBe(0o700);
        throw new Error("the agent failed");
      }),
    ).rejects.toThrow("the agent failed");
    expect(existsSync(seen)).toBe(false);
    expect(existsSync(join(seen, ".."))).toBe(false);
  });

  it("the folders a killed Baton left are removed; a live process's and anything else are kept", () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    }).stdout;
    for (const name of [`baton-agent-${dead}-aaaaaa`, `baton-agent-${process.pid}-bbbbbb`, "someone-else"]) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "context.json"), "{}");
    }
    expect(removeDeadRunsFiles(dir)).toEqual([`baton-agent-${dead}-aaaaaa`]);
    expect(existsSync(join(dir, `baton-agent-${process.pid}-bbbbbb`))).toBe(true);
    expect(existsSync(join(dir, "someone-else"))).toBe(true);
  });
});
