import { describe, expect, it } from "vitest";
import { detectLanguage, normalizeTitle, parseTaskNumbers, slugify, titleFromSlug } from "./naming.js";

describe("naming rules", () => {
  it("slugifies like the original /task (lowercase, underscores, max length, no trailing separator)", () => {
    const rules = { maxLength: 50, separator: "_" as const };
    expect(slugify("Review decidability results and FMP for publication", rules)).toBe(
      "review_decidability_results_and_fmp_for_publicatio",
    );
    expect(slugify("Fix `parser.ts` crash (#123)!", rules)).toBe("fix_parser_ts_crash_123");
    expect(slugify("Ünïcödé  títle", rules)).toBe("unicode_title");
    expect(slugify("a".repeat(49) + " b", rules)).toBe("a".repeat(49));
    expect(slugify("!!!", rules)).toBe("task");
    expect(slugify("Two words", { maxLength: 40, separator: "-" })).toBe("two-words");
  });

  it("normalises titles without touching paths or CamelCase", () => {
    expect(normalizeTitle("  Update   Demo.lean for FooBar.  ")).toBe("Update Demo.lean for FooBar");
    expect(titleFromSlug("fix_claude_code_sidebar")).toBe("Fix claude code sidebar");
  });

  it("detects the language by keyword, first match wins, among configured languages", () => {
    const all = ["lean", "logic", "math", "latex", "typst", "meta", "general"];
    expect(detectLanguage("Prove the soundness theorem for Kripke frames", all, "general")).toBe("logic");
    expect(detectLanguage("Add a lemma to Mathlib", all, "general")).toBe("lean");
    expect(detectLanguage("Fix the bibliography in paper.tex", all, "general")).toBe("latex");
    expect(detectLanguage("Add a skill for the agent", all, "general")).toBe("meta");
    expect(detectLanguage("Fix the login page", all, "general")).toBe("general");
    expect(detectLanguage("Prove the lemma", ["general"], "general")).toBe("general");
  });

  it("parses the original range syntax", () => {
    expect(parseTaskNumbers(["337, 343-345, 350"])).toEqual([337, 343, 344, 345, 350]);
    expect(parseTaskNumbers(["5", "5", "6"])).toEqual([5, 6]);
    expect(() => parseTaskNumbers(["9-3"])).toThrow(/invalid range/);
    expect(() => parseTaskNumbers(["abc"])).toThrow(/not a task number/);
  });
});
