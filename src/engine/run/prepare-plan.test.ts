import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgentCatalog } from "../../agents/index.js";
import { resolveConfig } from "../../config/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { PlanFormatError } from "../../shared/index.js";
import type { TaskEntry } from "../../state/index.js";
import { generatePlan, type PlanPhaseSpec } from "../../testing/generate-plan.js";
import { preparePlan } from "./prepare-plan.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(text: string, config: Parameters<typeof resolveConfig>[2] = {}) {
  const root = mkdtempSync(join(tmpdir(), "baton-prepare-"));
  dirs.push(root);
  const folder = join(root, "specs", "1_parser");
  mkdirSync(join(folder, "plans"), { recursive: true });
  writeFileSync(join(folder, "plans", "implementation-001.md"), text);
  const task = {
    project_number: 1,
    project_name: "parser",
    status: "planned",
    language: "lean",
  } as TaskEntry;
  const resolved = resolveConfig(root, null, config);
  return () => preparePlan(resolved, loadAgentCatalog(root, agentFileReaders()), task, folder, {});
}

const plan = (phases: PlanPhaseSpec[], style: "task" | "hard-barrier" = "hard-barrier") =>
  generatePlan({ style, taskNumber: 1, title: "Parser", phases });

describe("preparePlan", () => {
  it("returns null when the task has no plan file", () => {
    const root = mkdtempSync(join(tmpdir(), "baton-prepare-"));
    dirs.push(root);
    const task = { project_number: 1, project_name: "x", status: "planned" } as TaskEntry;
    expect(
      preparePlan(
        resolveConfig(root, null, {}),
        loadAgentCatalog(root, agentFileReaders()),
        task,
        join(root, "nope"),
        {},
      ),
    ).toBeNull();
  });

  it("layers waves, marks settled phases, and routes each phase by its tier", () => {
    const prepared = setup(
      plan([
        { id: "0", name: "Standards", marker: "COMPLETE" },
        { id: "1", name: "Proofs", dependencies: ["0"], implementer: "lean" },
        { id: "2", name: "Tooling", dependencies: ["0"], implementer: "software" },
        { id: "3", name: "Docs", dependencies: ["1", "2"] },
      ]),
    )()!;
    expect(prepared.waves).toEqual([["0"], ["1", "2"], ["3"]]);
    expect([...prepared.settled]).toEqual(["0"]);
    expect(prepared.routes.get("1")?.language).toBe("lean");
    expect(prepared.routes.get("2")?.language).toBe("general");
    // The generated phase text mentions `npm test` only: no rule matches, so the task's language.
    expect(prepared.routes.get("3")?.language).toBe("lean");
    expect(prepared.routes.has("0")).toBe(false);
  });

  it("refuses a cycle, naming the line and the phases, before anything runs", () => {
    const run = setup(
      plan([
        { id: "1", name: "A", dependencies: ["2"] },
        { id: "2", name: "B", dependencies: ["1"] },
      ]),
    );
    expect(run).toThrow(PlanFormatError);
    expect(run).toThrow(/implementation-001\.md:\d+: dependency cycle: Phase 1 → Phase 2 → Phase 1/);
  });

  it("refuses an unfinished phase defined twice, and routes a type no table names as research and plan do", () => {
    const twice = plan(
      [
        { id: "1", name: "A" },
        { id: "1", name: "A again" },
      ],
      "task",
    );
    expect(setup(twice)).toThrow(/Phase 1 is defined 2 times/);
    const routed = setup(plan([{ id: "1", name: "A" }]), {
      phases: { routing: [{ pattern: "npm", language: "cobol" }] },
    });
    // No table names cobol and the repository has no cobol-implementation-agent: the general route runs it.
    const prepared = routed()!;
    expect(prepared.routes.get("1")?.language).toBe("cobol");
    expect(prepared.routes.get("1")?.reason).toContain("config: general → implement");
  });
});
