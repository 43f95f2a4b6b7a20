import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { generatedRepo } from "./helpers.js";

describe("output through a pipe", () => {
  it("delivers every byte of a large --json listing to a slow reader", () => {
    const { dir, gen } = generatedRepo({ active: 1500, archived: 0 });
    // The reader starts late, so the pipe fills up: output must survive process exit.
    const out = execFileSync(
      "sh",
      ["-c", `"${process.execPath}" "${BATON_BIN}" task list --json | (sleep 0.4; cat)`],
      {
        cwd: dir,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    expect(out.length).toBeGreaterThan(256 * 1024);
    const tasks = JSON.parse(out) as Array<{ number: number }>;
    expect(tasks.map((t) => t.number)).toEqual(gen.activeNumbers);
  });
});
