import { describe, expect, it } from "vitest";
import { parsePlan } from "./parse.js";
import { type PhaseRouteOptions, routePhase } from "./route.js";

const TEXT = [
  "# Plan", // 1
  "", // 2
  "## Metadata", // 3
  "- **Status**: [NOT STARTED]", // 4
  "", // 5
  "### Phase 1: Prove it [NOT STARTED]", // 6
  "implementer: software", // 7
  "lean_file: /abs/A.lean", // 8
  "dependencies: []", // 9
  "- [ ] use Mathlib", // 10
  "", // 11
  "### Phase 2: Lemma work [NOT STARTED]", // 12
  "lean_file: /abs/A.lean, /abs/B.lean", // 13
  "dependencies: [1]", // 14
  "- [ ] edit tool.ts", // 15
  "", // 16
  "### Phase 3: Tooling [NOT STARTED]", // 17
  "dependencies: [1]", // 18
  "- [ ] update scripts/run.sh and the Mathlib pin", // 19
  "", // 20
  "### Phase 4: Lemmas [NOT STARTED]", // 21
  "dependencies: [1]", // 22
  "- [ ] search MATHLIB for it", // 23
  "", // 24
  "### Phase 5: Docs [NOT STARTED]", // 25
  "dependencies: [1]", // 26
  "- [ ] explain", // 27
  "", // 28
  "## Testing", // 29
  "- mathlib mentioned outside any phase", // 30
].join("\n");

const result = parsePlan("plan.md", TEXT);
if (!result.ok) throw new Error(JSON.stringify(result.problems));
const phases = result.plan.phases;
const lines = TEXT.split(/\r?\n/);

const options: PhaseRouteOptions = {
  implementers: { lean: "lean4", software: "general" },
  rules: [
    { pattern: String.raw`\.(ts|sh)\b`, flags: "", language: "general" },
    { pattern: String.raw`\bmathlib\b`, language: "lean4" },
  ],
  fallbackLanguage: "python",
};

const route = (k: number, opts: PhaseRouteOptions = options) => routePhase(phases[k]!, lines, opts);

describe("routePhase", () => {
  it("tier 1: the implementer field wins over lean_file and keywords", () => {
    expect(route(0)).toEqual({ language: "general", tier: 1, reason: "implementer: software" });
  });

  it("tier 2: a lean_file field wins over keywords", () => {
    expect(route(1)).toEqual({ language: "lean4", tier: 2, reason: "lean_file: /abs/A.lean, /abs/B.lean" });
  });

  it("tier 3: the first matching rule, in rule order", () => {
    expect(route(2)).toEqual({ language: "general", tier: 3, reason: String.raw`matched /\.(ts|sh)\b/` });
    const reversed = { ...options, rules: [...options.rules].reverse() };
    expect(route(2, reversed)).toEqual({
      language: "lean4",
      tier: 3,
      reason: String.raw`matched /\bmathlib\b/i`,
    });
  });

  it("tier 3 flags default to case-insensitive; an explicit empty string means none", () => {
    expect(route(3)).toMatchObject({ language: "lean4", tier: 3 });
    const strict = {
      ...options,
      rules: [{ pattern: String.raw`\bmathlib\b`, flags: "", language: "lean4" }],
    };
    expect(route(3, strict)).toEqual({ language: "python", tier: "fallback", reason: "task language" });
  });

  it("tier 3 looks at the phase's own text only (heading through its last line)", () => {
    const heading = { ...options, rules: [{ pattern: "^### Phase 5: Docs", flags: "m", language: "x" }] };
    expect(route(4, heading)).toMatchObject({ language: "x", tier: 3 });
    expect(route(4)).toEqual({ language: "python", tier: "fallback", reason: "task language" });
  });
});
