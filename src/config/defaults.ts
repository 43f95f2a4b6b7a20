import type { LanguageRoute } from "./schema.js";

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
