import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseAgentSignals } from "./agent-signals.js";
import type { GateOutInput } from "./gate-types.js";
import { runGateOut } from "./index.js";

const SESSION = "sess_1773703759_f69482";
const REPORT = "specs/5_task/reports/research-001.md";
let root: string;
let input: GateOutInput;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "baton-gate-"));
  mkdirSync(join(root, "specs/5_task/reports"), { recursive: true });
  input = {
    operation: "research",
    sessionId: SESSION,
    repoRoot: root,
    taskFolder: join(root, "specs/5_task"),
    metadataPath: join(root, "specs/5_task/.return-meta.json"),
    agentOutput: "",
    storePrefix: "specs",
    expected: { minArtifactBytes: 64 },
  };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function meta(
  overrides: Record<string, unknown> = {},
  artifacts: unknown[] = [{ type: "research", path: REPORT, summary: "Findings" }],
) {
  const value = {
    status: "researched",
    summary: "Researched the thing",
    artifacts,
    metadata: { session_id: SESSION, agent_type: "general-research-agent", delegation_depth: 1 },
    ...overrides,
  };
  writeFileSync(input.metadataPath, JSON.stringify(value));
}

function report(content = "# Research Report\n\n" + "A real finding, with evidence. ".repeat(10)) {
  writeFileSync(join(root, REPORT), content);
}

async function refusal() {
  const verdict = await runGateOut(input);
  if (verdict.ok) throw new Error("expected a refusal");
  return verdict;
}

describe("GATE OUT", () => {
  it("accepts a real result and returns the verified artifacts", async () => {
    report();
    meta();
    const verdict = await runGateOut(input);
    expect(verdict).toMatchObject({
      ok: true,
      outcome: "done",
      artifacts: [{ type: "research", path: REPORT, summary: "Findings" }],
    });
  });

  it("accepts partial results as resumable", async () => {
    meta(
      { status: "partial", partial_progress: { stage: "phase 2", phases_completed: 1, phases_total: 3 } },
      [],
    );
    expect(await runGateOut(input)).toMatchObject({ ok: true, outcome: "partial", artifacts: [] });
  });

  it.each([
    [
      "no metadata file",
      () => report(),
      "META_MISSING",
      /wrote no return metadata \(specs\/5_task\/\.return-meta\.json does not exist\)/,
    ],
    [
      "malformed JSON",
      () => writeFileSync(input.metadataPath, '{"status": "researched",'),
      "META_INVALID_JSON",
      /is not valid JSON/,
    ],
    ["a missing summary", () => meta({ summary: undefined }), "META_SCHEMA", /summary: expected string/],
    [
      "a wrong session id",
      () => meta({ metadata: { session_id: "sess_1700000000_aaaaaa", agent_type: "x" } }),
      "META_SESSION_MISMATCH",
      /belongs to session sess_1700000000_aaaaaa/,
    ],
    [
      "status completed",
      () => meta({ status: "completed" }),
      "META_STATUS_COMPLETED",
      /Baton completes tasks/,
    ],
    [
      "status in_progress",
      () => meta({ status: "in_progress" }),
      "META_STATUS_IN_PROGRESS",
      /still says in_progress/,
    ],
    [
      "status failed",
      () => meta({ status: "failed", summary: "could not build" }),
      "AGENT_FAILED",
      /could not build/,
    ],
    [
      "status blocked",
      () => meta({ status: "blocked", summary: "needs a key" }),
      "AGENT_BLOCKED",
      /needs a key/,
    ],
    [
      "another operation's status",
      () => meta({ status: "planned" }),
      "META_STATUS_NOT_ALLOWED",
      /"planned" cannot end research/,
    ],
    ["a missing artifact", () => meta(), "ARTIFACT_MISSING", /research-001\.md does not exist/],
    [
      "an empty artifact",
      () => {
        report("");
        meta();
      },
      "ARTIFACT_EMPTY",
      /is empty/,
    ],
    [
      "a stub artifact",
      () => {
        report("# TODO\n");
        meta();
      },
      "ARTIFACT_TOO_SMALL",
      /7 bytes, below the minimum of 64/,
    ],
    ["no artifact at all", () => meta({}, []), "ARTIFACT_NONE", /listed no artifact/],
  ])("refuses %s", async (_name, arrange, code, message) => {
    arrange();
    const verdict = await refusal();
    expect(verdict.code).toBe(code);
    expect(verdict.message).toMatch(message);
  });

  it("refuses an artifact outside the task folder by path", async () => {
    writeFileSync(join(root, "specs/elsewhere.md"), "x".repeat(200));
    meta({}, [{ type: "research", path: "specs/5_task/../elsewhere.md" }]);
    expect(await refusal()).toMatchObject({ code: "ARTIFACT_OUTSIDE_TASK" });
  });

  it("refuses a symlink inside the folder that points outside it", async () => {
    writeFileSync(join(root, "secret.md"), "x".repeat(200));
    symlinkSync(join(root, "secret.md"), join(root, REPORT));
    meta();
    const verdict = await refusal();
    expect(verdict.code).toBe("ARTIFACT_OUTSIDE_TASK");
    expect(verdict.message).toContain("is a link to");
  });

  it("accepts a symlink that stays inside the folder", async () => {
    writeFileSync(join(root, "specs/5_task/reports/real.md"), "x".repeat(200));
    symlinkSync("real.md", join(root, REPORT));
    meta();
    expect((await runGateOut(input)).ok).toBe(true);
  });

  it("refuses an implemented result without a completion summary", async () => {
    input.operation = "implement";
    report();
    meta({ status: "implemented" });
    expect(await refusal()).toMatchObject({
      code: "META_SCHEMA",
      message: expect.stringContaining("completion_summary"),
    });
  });

  it("refuses on TASK_ERROR even with good metadata, and records the context", async () => {
    report();
    meta();
    input.agentOutput = "working…\nTASK_ERROR: lake build failed\nERROR_CONTEXT: 3 errors in Foo.lean\n";
    const verdict = await refusal();
    expect(verdict.code).toBe("AGENT_REPORTED_ERROR");
    expect(verdict.message).toBe(
      "the agent reported TASK_ERROR: lake build failed (context: 3 errors in Foo.lean)",
    );
    expect(verdict.signals).toEqual([
      { kind: "TASK_ERROR", text: "lake build failed" },
      { kind: "ERROR_CONTEXT", text: "3 errors in Foo.lean" },
    ]);
  });

  it("parses signals anywhere in the output, CRLF included", () => {
    expect(parseAgentSignals("a\r\n  ERROR_CONTEXT: only context\r\nb")).toEqual([
      { kind: "ERROR_CONTEXT", text: "only context" },
    ]);
  });
});

describe("GATE OUT: substance of research and plans", () => {
  const FINDINGS = Array.from(
    { length: 12 },
    (_, i) => `Finding ${i}: the lexer drops token ${i} at src/lexer.ts:${40 + i}.`,
  ).join("\n");

  it("refuses a report without the configured sections, naming them", async () => {
    input.expected.researchSections = ["Summary", "Findings"];
    report(`# Research Report\n\n## Findings\n\n${FINDINGS}\n`);
    meta();
    const refused = await refusal();
    expect(refused.code).toBe("REPORT_SECTIONS_MISSING");
    expect(refused.message).toContain('"Summary"');
    report(`# Research Report\n\n**Summary**\n\nShort.\n\n## Findings\n\n${FINDINGS}\n`);
    expect((await runGateOut(input)).ok).toBe(true);
    // A section inside a code block is an example of one, not the report's (read as CommonMark).
    report(`# Research Report\n\n\`\`\`markdown\n## Summary\n\`\`\`\n\n## Findings\n\n${FINDINGS}\n`);
    expect(await refusal()).toMatchObject({ code: "REPORT_SECTIONS_MISSING" });
    // One indented up to three spaces, or closed with `#`s, is a heading all the same.
    report(`# Research Report\n\n   ## Summary ##\n\nShort.\n\n## Findings\n\n${FINDINGS}\n`);
    expect((await runGateOut(input)).ok).toBe(true);
  });

  it("refuses a near copy of an earlier artifact of the task, or of the agent's template", async () => {
    const earlier = "specs/5_task/reports/research-000.md";
    writeFileSync(join(root, earlier), `# Research Report\n\n${FINDINGS}\n`);
    report(`# Research Report (again)\n\n${FINDINGS}\n`);
    meta();
    input.expected.earlierArtifacts = [earlier];
    expect(await refusal()).toMatchObject({ code: "ARTIFACT_NEAR_COPY" });
    input.expected.earlierArtifacts = [];
    input.expected.templates = [
      { source: join(root, ".claude/agents/r.md"), text: `# Research Report\n\n${FINDINGS}\n` },
    ];
    const refused = await refusal();
    expect(refused.message).toContain(".claude/agents/r.md");
    // New work about the same subject passes.
    input.expected.templates = [];
    input.expected.earlierArtifacts = [earlier];
    report(`# Research Report\n\n${FINDINGS.replaceAll("drops", "keeps").replaceAll("lexer", "parser")}\n`);
    expect((await runGateOut(input)).ok).toBe(true);
  });

  it("refuses a plan that does not parse into phases that can run in waves", async () => {
    const PLAN = "specs/5_task/plans/implementation-001.md";
    mkdirSync(join(root, "specs/5_task/plans"), { recursive: true });
    input.operation = "plan";
    const planMeta = () => meta({ status: "planned" }, [{ type: "plan", path: PLAN }]);
    const phase = (n: number, deps: string) =>
      `### Phase ${n}: Step ${n} [NOT STARTED]\n\n- **Dependencies**: ${deps}\n\n**Tasks**:\n- [ ] Do step ${n}\n`;
    const head =
      "# Implementation Plan: Task #5\n\n- **Status**: [NOT STARTED]\n\n## Implementation Phases\n\n";
    writeFileSync(join(root, PLAN), `${head}${"Prose without any phase at all. ".repeat(10)}\n`);
    planMeta();
    expect(await refusal()).toMatchObject({ code: "PLAN_UNPARSABLE" });
    writeFileSync(join(root, PLAN), `${head}${phase(1, "Phase 2")}\n${phase(2, "Phase 1")}`);
    const cycle = await refusal();
    expect(cycle.code).toBe("PLAN_UNPARSABLE");
    expect(cycle.message).toContain("cycle");
    writeFileSync(join(root, PLAN), `${head}${phase(1, "None")}\n${phase(2, "Phase 1")}`);
    expect(await runGateOut(input)).toMatchObject({ ok: true });
  });
});
