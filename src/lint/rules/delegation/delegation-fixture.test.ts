import { beforeAll, describe, expect, it } from "vitest";
import { buildModel } from "../../../../test/support/lint-model.js";
import { sharedFixture } from "../../../testing/requirements.js";
import type { Finding, LintModel } from "../../rule-types.js";
import { delegationRules } from "./index.js";

const FIXTURE = sharedFixture("proofchecker") ?? "";

describe.skipIf(FIXTURE === "")("delegation rules on the proofchecker fixture", () => {
  let model: LintModel;
  const findings = async (id: string): Promise<Finding[]> => {
    const rule = delegationRules.find((r) => r.id === id);
    if (!rule) throw new Error(`no rule ${id}`);
    return rule.check(model);
  };
  const where = (list: Finding[]) => list.map((f) => `${f.file}:${f.line}`);

  beforeAll(async () => {
    model = await buildModel(FIXTURE);
  });

  it("has no simulated delegations and no twin commands", async () => {
    expect(await findings("delegation/simulated-delegation")).toEqual([]);
    expect(await findings("delegation/twin-commands")).toEqual([]);
  });

  it("finds every jq > tmp && mv and sed -i onto specs state, on the writing line", async () => {
    const list = await findings("delegation/direct-state-write");
    const perFile: Record<string, number> = {};
    for (const f of list) perFile[f.file] = (perFile[f.file] ?? 0) + 1;
    expect(perFile).toEqual({
      ".claude/agents/typst-research-agent.md": 1,
      ".claude/commands/implement.md": 1,
      ".claude/commands/lake.md": 1,
      ".claude/commands/review.md": 1,
      ".claude/commands/revise.md": 3,
      ".claude/commands/task.md": 9,
      ".claude/commands/todo.md": 4,
      ".claude/scripts/postflight-implement.sh": 3,
      ".claude/scripts/postflight-plan.sh": 3,
      ".claude/scripts/postflight-research.sh": 3,
      ".claude/skills/skill-implementer/SKILL.md": 9,
      ".claude/skills/skill-lake-repair/SKILL.md": 1,
      ".claude/skills/skill-latex-implementation/SKILL.md": 7,
      ".claude/skills/skill-latex-research/SKILL.md": 4,
      ".claude/skills/skill-lean-implementation/SKILL.md": 7,
      ".claude/skills/skill-lean-research/SKILL.md": 4,
      ".claude/skills/skill-logic-research/SKILL.md": 4,
      ".claude/skills/skill-math-research/SKILL.md": 4,
      ".claude/skills/skill-planner/SKILL.md": 5,
      ".claude/skills/skill-researcher/SKILL.md": 4,
      ".claude/skills/skill-status-sync/SKILL.md": 6,
      ".claude/skills/skill-team-research/SKILL.md": 3,
      ".claude/skills/skill-typst-implementation/SKILL.md": 7,
      ".claude/skills/skill-typst-research/SKILL.md": 4,
    });
    // Each flagged line holds the write itself: an `mv` onto the state file, or the `sed -i` onto TODO.md.
    for (const f of list) {
      const text = model.byPath.get(f.file)?.lines[f.line - 1] ?? "";
      expect(`${f.file}:${f.line} ${text}`).toMatch(
        /\bmv\s+\S+\s+\S*(state\.json|errors\.json|\$state_file)|sed -i .*next_project_number/,
      );
    }
    // specs/reviews/state.json belongs to /review, not to the task store.
    expect(list.some((f) => f.message.includes("reviews/state.json"))).toBe(false);
  });

  it("flags the one delegation nobody checks: team-plan's single-agent fallback", async () => {
    expect(where(await findings("delegation/unverified-delegation"))).toEqual([
      ".claude/skills/skill-team-plan/SKILL.md:126",
    ]);
  });

  it("flags team-implement executing single-phase waves itself", async () => {
    expect(where(await findings("delegation/conditional-delegation"))).toEqual([
      ".claude/skills/skill-team-implement/SKILL.md:271",
    ]);
  });

  it("flags return formats with status completed, not the agents' MUST NOT lists or task statuses", async () => {
    expect(where(await findings("delegation/returns-completed"))).toEqual([
      ".claude/context/core/checkpoints/checkpoint-commit.md:114",
      ".claude/context/core/checkpoints/checkpoint-gate-out.md:13",
      ".claude/context/core/orchestration/architecture.md:206",
      ".claude/context/core/orchestration/delegation.md:40",
      ".claude/context/core/orchestration/delegation.md:431",
      ".claude/context/core/orchestration/delegation.md:535",
      ".claude/context/core/orchestration/delegation.md:572",
      ".claude/context/core/orchestration/delegation.md:610",
      ".claude/context/core/orchestration/delegation.md:652",
      ".claude/context/core/orchestration/orchestrator.md:139",
      ".claude/context/core/orchestration/validation.md:406",
      ".claude/context/core/orchestration/validation.md:57",
      ".claude/context/core/patterns/team-orchestration.md:131",
      ".claude/context/core/templates/thin-wrapper-skill.md:135",
      ".claude/context/core/validation.md:9",
      ".claude/context/core/workflows/preflight-postflight.md:298",
      ".claude/context/project/meta/standards-checklist.md:87",
      ".claude/context/project/processes/implementation-workflow.md:289",
      ".claude/context/project/processes/planning-workflow.md:255",
      ".claude/context/project/processes/research-workflow.md:290",
      ".claude/skills/skill-git-workflow/SKILL.md:197",
      ".claude/skills/skill-meta/SKILL.md:110",
      ".claude/skills/skill-orchestrator/SKILL.md:151",
    ]);
  });
});
