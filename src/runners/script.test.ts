import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sampleRunRequest } from "../testing/run-request.js";
import { parseScript, planScript, type Script } from "./script.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-script-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const request = sampleRunRequest(dir);

function problem(value: unknown): string {
  const parsed = parseScript(value, "demo.json");
  return parsed.ok ? "(valid)" : parsed.message;
}

describe("script format", () => {
  it("accepts every kind of step", () => {
    const script = {
      description: "all steps",
      usage: { inputTokens: 10, costUsd: 0.01 },
      steps: [
        { write: "a.txt", content: "x" },
        { write: "/tmp/x", content: "", allowOutside: true },
        { writeMetadata: { status: "researched", metadata: { session_id: "{session_id}" } } },
        { output: "line" },
        { output: "warning", stream: "stderr" },
        { progress: "Running tests", tool: "Bash" },
        { sleepMs: 10 },
        { hang: true, ignoreSigterm: true },
        { crash: true },
        { exit: 3 },
      ],
    };
    expect(parseScript(script)).toEqual({ ok: true, script });
  });

  it("names the step and field of every mistake", () => {
    expect(problem({ steps: [{ write: "a.txt" }] })).toBe(
      "demo.json: steps[0].content: expected string (missing)",
    );
    expect(problem({ steps: [{ output: "ok" }, { exit: 300 }] })).toBe(
      "demo.json: steps[1].exit: must be at most 255",
    );
    expect(problem({ steps: [{ writ: "a.txt", content: "" }] })).toBe(
      "demo.json: steps[0]: no action; expected one of write, writeMetadata, output, progress, sleepMs, exit, hang, crash",
    );
    expect(problem({ steps: [{ write: "a", content: "", exit: 1 }] })).toBe(
      "demo.json: steps[0]: one action per step, found write and exit",
    );
    expect(problem({ steps: [{ output: "x", colour: "red" }] })).toBe(
      'demo.json: steps[0]: unknown key "colour"',
    );
    expect(problem({ steps: [{ hang: false }] })).toContain("steps[0].hang");
    expect(problem({ steps: [{ writeMetadata: ["not", "an", "object"] }] })).toContain(
      "steps[0].writeMetadata",
    );
    expect(problem({ steps: ["exit"] })).toContain("steps[0]: expected an object");
    expect(problem({ step: [] })).toBe(
      'demo.json: steps: expected array (missing); (top level): unknown key "step"',
    );
    expect(problem({ steps: [], usage: { turns: -1 } })).toBe("demo.json: usage.turns: must be at least 0");
  });

  it("substitutes placeholders in paths, contents, output and metadata strings", () => {
    const script: Script = {
      steps: [
        {
          write: "{task_folder}/reports/research-001.md",
          content: "# Task {task_number} ({operation})\n{kept}",
        },
        {
          writeMetadata: {
            status: "researched",
            metadata: { session_id: "{session_id}", n: 1, list: ["{task_name}"] },
          },
        },
        { output: "session {session_id}" },
      ],
    };
    const planned = planScript(script, request);
    expect(planned).toEqual({
      ok: true,
      plan: {
        steps: [
          {
            op: "write",
            path: join(dir, "specs/12_add_widget/reports/research-001.md"),
            content: "# Task 12 (research)\n{kept}",
            label: "specs/12_add_widget/reports/research-001.md",
          },
          {
            op: "write",
            path: join(dir, "specs/12_add_widget/.return-meta.json"),
            content: `${JSON.stringify(
              {
                status: "researched",
                metadata: { session_id: "sess_1773703759_f69482", n: 1, list: ["add_widget"] },
              },
              null,
              2,
            )}\n`,
            label: "specs/12_add_widget/.return-meta.json",
          },
          { op: "output", stream: "stdout", text: "session sess_1773703759_f69482" },
        ],
      },
    });
  });

  it("refuses writes outside the repository unless the step allows it", () => {
    const outside = (write: string) => planScript({ steps: [{ write, content: "" }] }, request);
    for (const path of ["../escape.txt", "/tmp/escape.txt", "specs/../../escape.txt"]) {
      const planned = outside(path);
      expect(planned.ok).toBe(false);
      if (!planned.ok) expect(planned.message).toMatch(/^steps\[0\]\.write: .* is outside the repository/);
    }
    expect(outside("..notes/inside.txt").ok).toBe(true);

    mkdirSync(join(dir, "real"), { recursive: true });
    symlinkSync(tmpdir(), join(dir, "link-out"));
    expect(outside("link-out/escape.txt").ok).toBe(false);
    expect(outside("real/new/inside.txt").ok).toBe(true);

    const allowed = planScript(
      { steps: [{ write: "../escape.txt", content: "", allowOutside: true }] },
      request,
    );
    expect(allowed.ok).toBe(true);

    const metaOutside = sampleRunRequest(dir, {
      context: { ...request.context, metadata_file_path: "../elsewhere/.return-meta.json" },
    });
    const refused = planScript({ steps: [{ writeMetadata: {} }] }, metaOutside);
    expect(refused.ok ? "" : refused.message).toContain("steps[0].writeMetadata (metadata_file_path)");
  });
});
