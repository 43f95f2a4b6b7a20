import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordingOptions, sampleRunRequest } from "../testing/run-request.js";
import { CommandRunner, parseCommandTemplate } from "./command.js";
import { delegationEnv, placeholderValues, substitute } from "./context.js";
import { PrivateFiles } from "./private-file.js";
import type { RunRequest } from "./runner-types.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-context-")));
const files = new PrivateFiles();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  files.remove();
});
const request = sampleRunRequest(dir);
const phaseRequest: RunRequest = {
  ...request,
  context: {
    ...request.context,
    operation: "implement",
    iteration: 2,
    continuation_context: "Tests for the empty case still fail.",
    phase: {
      id: "2a",
      name: "Parser guards",
      dependencies: ["1"],
      summary_path: "specs/12_add_widget/summaries/phase-2a-summary.md",
    },
  },
};

describe("phase placeholders", () => {
  it("are the phase's id, name, iteration and summary path in a phase run", () => {
    expect(placeholderValues(phaseRequest)).toMatchObject({
      phase_id: "2a",
      phase_name: "Parser guards",
      iteration: "2",
      summary_file: "specs/12_add_widget/summaries/phase-2a-summary.md",
    });
    expect(substitute("{phase_id}/{iteration} → {summary_file}", placeholderValues(phaseRequest))).toBe(
      "2a/2 → specs/12_add_widget/summaries/phase-2a-summary.md",
    );
  });

  it('are empty outside a phase run, iteration "1"', () => {
    expect(placeholderValues(request)).toMatchObject({
      phase_id: "",
      phase_name: "",
      iteration: "1",
      summary_file: "",
    });
  });

  it("are known to command templates", () => {
    expect(parseCommandTemplate({ command: "agent", args: ["{phase_id}", "{summary_file}"] }).ok).toBe(true);
  });
});

describe("phase environment", () => {
  it("sets BATON_PHASE_ID, BATON_PHASE_NAME, BATON_ITERATION and BATON_SUMMARY_FILE in a phase run", () => {
    const env = delegationEnv(phaseRequest, { PATH: "/bin" }, files);
    expect(env).toMatchObject({
      BATON_PHASE_ID: "2a",
      BATON_PHASE_NAME: "Parser guards",
      BATON_ITERATION: "2",
      BATON_SUMMARY_FILE: "specs/12_add_widget/summaries/phase-2a-summary.md",
    });
    // The dependencies and the continuation context travel in BATON_CONTEXT.
    expect(JSON.parse(env.BATON_CONTEXT!)).toMatchObject({
      continuation_context: "Tests for the empty case still fail.",
      phase: { dependencies: ["1"] },
    });
  });

  it("leaves them unset outside a phase run, even when an enclosing run had them", () => {
    const env = delegationEnv(
      request,
      {
        PATH: "/bin",
        BATON_PHASE_ID: "9",
        BATON_PHASE_NAME: "outer",
        BATON_ITERATION: "4",
        BATON_SUMMARY_FILE: "outer.md",
      },
      files,
    );
    for (const key of ["BATON_PHASE_ID", "BATON_PHASE_NAME", "BATON_ITERATION", "BATON_SUMMARY_FILE"]) {
      expect(env[key]).toBeUndefined();
    }
    expect(env.PATH).toBe("/bin");
  });

  it("reach the agent process", async () => {
    const runner = new CommandRunner({
      command: process.execPath,
      args: [
        "--input-type=module",
        "-e",
        "const e = process.env; console.log([e.BATON_PHASE_ID, e.BATON_ITERATION, e.BATON_SUMMARY_FILE, process.argv[1]].join(' '))",
        "--",
        "{phase_name}",
      ],
    });
    const outcome = await runner.run(phaseRequest, recordingOptions());
    expect(outcome).toMatchObject({
      ok: true,
      output: "2a 2 specs/12_add_widget/summaries/phase-2a-summary.md Parser guards\n",
    });
  });
});
