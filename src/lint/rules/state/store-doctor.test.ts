import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildModel } from "../../../../test/support/lint-model.js";
import { resolveConfig } from "../../../config/index.js";
import { generateRepo } from "../../../testing/generate-repo.js";
import { stateDoctor } from "./store-doctor.js";

describe("state/doctor", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function lintState() {
    const model = await buildModel(dir);
    model.config = resolveConfig(dir, null, {});
    return stateDoctor.check(model);
  }

  it("turns doctor findings into lint findings on state.json and TODO.md", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-lint-state-"));
    const gen = generateRepo({ dir, active: 3, seed: 7 });
    const statePath = join(dir, "specs/state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8"));
    state.next_project_number = Math.max(...gen.activeNumbers);
    writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
    const todoPath = join(dir, "specs/TODO.md");
    writeFileSync(
      todoPath,
      readFileSync(todoPath, "utf8").replace(/next_project_number: \d+/, "next_project_number: 1"),
    );
    const findings = await lintState();
    const codes = findings.map((f) => `${f.file} ${f.severity} ${/\[(\w+)\]$/.exec(f.message)?.[1]}`);
    expect(codes).toContain("specs/state.json error NEXT_NUMBER_TAKEN");
    expect(codes).toContain("specs/state.json error NEXT_NUMBER_MISMATCH");
    expect(findings.every((f) => f.rule === "state/doctor")).toBe(true);
    expect(findings.find((f) => f.message.includes("NEXT_NUMBER_TAKEN"))!.hint).toContain(
      "baton doctor --fix",
    );
    expect(gen.activeNumbers.length).toBe(3);
  });

  it("points a task's finding at its TODO.md heading", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-lint-state-"));
    const gen = generateRepo({ dir, active: 2, seed: 3 });
    const todoPath = join(dir, "specs/TODO.md");
    const n = gen.activeNumbers[0]!;
    const todo = readFileSync(todoPath, "utf8").split("\n");
    const heading = todo.findIndex((l) => l.startsWith(`### ${n}.`));
    const marker = todo.findIndex((l, i) => i > heading && l.startsWith("- **Status**:"));
    todo[marker] = "- **Status**: [BLOCKED]";
    writeFileSync(todoPath, todo.join("\n"));
    const mismatch = (await lintState()).find((f) => f.message.includes("STATUS_MISMATCH"));
    expect(mismatch).toMatchObject({ file: "specs/TODO.md", line: heading + 1, severity: "error" });
  });

  it("passes a consistent store, and does nothing without specs/ or config", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-lint-state-"));
    expect(await lintState()).toEqual([]);
    generateRepo({ dir, active: 3, seed: 1, folders: true });
    expect(await lintState()).toEqual([]);
    expect(await stateDoctor.check(await buildModel(dir))).toEqual([]);
  });
});
