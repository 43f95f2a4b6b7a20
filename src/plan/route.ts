import type { Phase } from "./plan-types.js";

/** Structurally the config's PhaseRoutingRule; declared here so that plan/ does not depend on config/. */
export interface PhaseRouteRule {
  pattern: string;
  /** RegExp flags; default "i". */
  flags?: string;
  language: string;
}

export interface PhaseRouteOptions {
  /** Tier 1: the language each `implementer:` value routes to; `lean` also serves tier 2. */
  implementers: { lean: string; software: string };
  /** Tier 3, first match wins. */
  rules: readonly PhaseRouteRule[];
  /** No tier decided: normally the task's own language. */
  fallbackLanguage: string;
}

export interface PhaseRoute {
  language: string;
  tier: 1 | 2 | 3 | "fallback";
  /** What decided, for logs and `plan show`: `implementer: lean`, `matched /\bmathlib\b/i`, … */
  reason: string;
}

/**
 * The language whose implement agent runs a phase, by the tiers of hard-barrier section 2, first match
 * wins: the phase's `implementer:` field, then a `lean_file:` field, then the first rule whose pattern
 * matches the phase text (heading through its last line), else the fallback. `planLines` are the plan's
 * lines as parsePlan split them (`text.split(/\r?\n/)`), so the phase's line numbers index them.
 * A rule's pattern is compiled here; config validation makes sure it compiles.
 */
export function routePhase(
  phase: Pick<Phase, "line" | "endLine" | "implementer" | "leanFiles">,
  planLines: readonly string[],
  options: PhaseRouteOptions,
): PhaseRoute {
  if (phase.implementer !== null) {
    return {
      language: options.implementers[phase.implementer],
      tier: 1,
      reason: `implementer: ${phase.implementer}`,
    };
  }
  if (phase.leanFiles.length > 0) {
    return {
      language: options.implementers.lean,
      tier: 2,
      reason: `lean_file: ${phase.leanFiles.join(", ")}`,
    };
  }
  const text = planLines.slice(phase.line - 1, phase.endLine).join("\n");
  for (const rule of options.rules) {
    const pattern = new RegExp(rule.pattern, rule.flags ?? "i");
    if (pattern.test(text)) return { language: rule.language, tier: 3, reason: `matched ${String(pattern)}` };
  }
  return { language: options.fallbackLanguage, tier: "fallback", reason: "task language" };
}
