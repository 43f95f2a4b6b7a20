import type { Rule } from "./rule-types.js";

/**
 * `lint.disable` and `--disable` take rule ids or prefixes: `git/` (or `git`) turns off a whole group,
 * `references/unknown-agent` one rule. `--only` keeps just the matching rules (then `disable` still applies).
 */
export function matchesRule(id: string, pattern: string): boolean {
  const p = pattern.trim();
  if (p === "") return false;
  if (p.endsWith("/")) return id.startsWith(p);
  return id === p || id.startsWith(`${p}/`);
}

export function selectRules(
  rules: readonly Rule[],
  options: { disable?: string[]; only?: string[] },
): Rule[] {
  const disable = options.disable ?? [];
  const only = options.only ?? [];
  return rules.filter(
    (rule) =>
      (only.length === 0 || only.some((p) => matchesRule(rule.id, p))) &&
      !disable.some((p) => matchesRule(rule.id, p)),
  );
}

/** Patterns that match no rule: almost always a typo, which would otherwise silently disable nothing. */
export function unmatchedPatterns(rules: readonly Rule[], patterns: readonly string[]): string[] {
  return patterns.filter((p) => !rules.some((rule) => matchesRule(rule.id, p)));
}
