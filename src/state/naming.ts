import type { SlugSeparator } from "../config/index.js";
/** Slug, title and language rules of the original /task command (format reference 8.5, 8.6). */

export interface SlugRules {
  maxLength: number;
  separator: SlugSeparator;
}

export function slugify(title: string, rules: SlugRules): string {
  const sep = rules.separator;
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, sep)
    .replace(new RegExp(`^\\${sep}+|\\${sep}+$`, "g"), "");
  const cut = slug.slice(0, rules.maxLength).replace(new RegExp(`\\${sep}+$`), "");
  return cut === "" ? "task" : cut;
}

/** Collapse whitespace and drop a trailing period; everything else (paths, CamelCase, `#123`) stays. */
export function normalizeTitle(title: string): string {
  return title.replace(/\s+/g, " ").trim().replace(/\.$/, "");
}

/** A readable title for a task that has none (recovered archive entries carry only the slug). */
export function titleFromSlug(slug: string): string {
  const words = slug.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const LANGUAGE_KEYWORDS: ReadonlyArray<readonly [string, RegExp]> = [
  ["logic", /\b(modal logic|kripke|proof theory|soundness theorem|completeness theorem|tense logic)\b/i],
  ["math", /\b(quantale|heyting algebra|galois connection|category theory|lattice theory)\b/i],
  ["lean", /\b(lean|theorem|proof|lemma|mathlib)\b/i],
  ["latex", /(\blatex\b|\.tex\b|\bbibliography\b|\bbibtex\b)/i],
  ["typst", /(\btypst\b|\.typ\b)/i],
  ["meta", /\b(meta|agent|command|skill)\b/i],
];

/** First keyword match wins, as in the original; only languages the repository configures are chosen. */
export function detectLanguage(text: string, languages: readonly string[], fallback: string): string {
  for (const [language, pattern] of LANGUAGE_KEYWORDS) {
    if (languages.includes(language) && pattern.test(text)) return language;
  }
  return fallback;
}

/** The original's four levels, highest first: a task's priority, and an error's severity (format reference 5). */
export const PRIORITIES = ["critical", "high", "medium", "low"] as const;
export type Level = (typeof PRIORITIES)[number];

/** `343-345`, `337, 343-345, 350` (the original's range syntax for abandon and recover). */
export function parseTaskNumbers(specs: readonly string[]): number[] {
  const out: number[] = [];
  for (const spec of specs.flatMap((s) => s.split(","))) {
    const part = spec.trim();
    if (part === "") continue;
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    if (range) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      if (to < from || to - from > 10_000) throw new RangeError(`invalid range "${part}"`);
      for (let n = from; n <= to; n++) out.push(n);
    } else if (/^\d+$/.test(part)) out.push(Number(part));
    else throw new RangeError(`"${part}" is not a task number or range (examples: 12, 12-15, "12, 14-16")`);
  }
  return [...new Set(out)];
}
