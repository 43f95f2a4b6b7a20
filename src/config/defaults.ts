import type { Operation } from "../shared/operation-names.js";
import type { LanguageRoute, PhaseRoutingRule } from "./config-schema.js";

/** The languages of the original system (DOC) plus the ones its history shows (`lean4`, `formal`). */
export const DEFAULT_LANGUAGES = [
  "lean",
  "lean4",
  "logic",
  "math",
  "latex",
  "typst",
  "general",
  "meta",
  "markdown",
  "formal",
];

const general: Required<LanguageRoute> = {
  research: "general-research-agent",
  plan: "planner-agent",
  implement: "general-implementation-agent",
  revise: "planner-agent",
};

/** How long an operation's agent may run: the original system's limits (research 3600 s, plan 1800 s, implement 7200 s). */
export const DEFAULT_TIMEOUTS_MS: Record<Operation, number> = {
  research: 3_600_000,
  plan: 1_800_000,
  implement: 7_200_000,
  revise: 1_800_000,
};

/** The original routing table (commands/*.md): language → agent per operation. */
export const DEFAULT_ROUTING: Record<string, Required<LanguageRoute>> = {
  general,
  meta: { ...general, implement: "general-implementation-agent" },
  markdown: general,
  lean: { ...general, research: "lean-research-agent", implement: "lean-implementation-agent" },
  lean4: { ...general, research: "lean-research-agent", implement: "lean-implementation-agent" },
  formal: { ...general, research: "logic-research-agent", implement: "lean-implementation-agent" },
  logic: { ...general, research: "logic-research-agent", implement: "lean-implementation-agent" },
  math: { ...general, research: "math-research-agent", implement: "lean-implementation-agent" },
  latex: { ...general, research: "latex-research-agent", implement: "latex-implementation-agent" },
  typst: { ...general, research: "typst-research-agent", implement: "typst-implementation-agent" },
};

/**
 * Tier 3 of phase routing, after hard-barrier section 2: software file extensions first (a phase that
 * edits .ts or .py files is software even when it mentions .lean files), then proof work on .lean files,
 * then Mathlib and Lean tooling. Left out of the reference's rules: `.md` (Lean phases routinely update
 * ROAD_MAP.md) and the verb rule (implement|create|build…), since nearly every Lean phase says
 * `lake build`. No match: the task's own language.
 */
export const DEFAULT_PHASE_ROUTING: PhaseRoutingRule[] = [
  { pattern: String.raw`\.(ts|tsx|js|jsx|py|sh|json|yaml|toml)\b`, flags: "", language: "general" },
  {
    pattern: String.raw`^(?=[\s\S]*\.lean\b)(?=[\s\S]*\b(theorem|lemma|proof|sorry|tactic)\b)`,
    flags: "i",
    language: "lean",
  },
  { pattern: String.raw`\bmathlib\b|\blean_(goal|build|leansearch)`, flags: "i", language: "lean" },
];
