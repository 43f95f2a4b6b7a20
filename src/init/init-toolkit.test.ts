import { describe, expect, it } from "vitest";
import { resolveBin, shellQuote } from "./bin.js";
import { unifiedDiff } from "./diff.js";

describe("shell quoting and the default bin", () => {
  it("quotes only words that need it", () => {
    expect(shellQuote("/usr/local/bin/baton")).toBe("/usr/local/bin/baton");
    expect(shellQuote("/a b/baton.js")).toBe("'/a b/baton.js'");
    expect(shellQuote("/it's/baton")).toBe("'/it'\\''s/baton'");
  });

  it("uses node and the absolute bin/baton.js when baton is not on PATH", () => {
    expect(resolveBin(undefined, "")).toMatch(/^node \/\S+\/bin\/baton\.js$/);
    expect(resolveBin("npx baton")).toBe("npx baton");
  });
});

describe("unifiedDiff", () => {
  it("prints hunks with context like diff -u", () => {
    const a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
    expect(unifiedDiff("f", a, b)).toBe(
      "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    );
  });

  it("shows creation, deletion and a missing final newline", () => {
    expect(unifiedDiff("f", null, "x\n")).toBe("--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n");
    expect(unifiedDiff("f", "x\ny\n", null)).toBe("--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n");
    expect(unifiedDiff("f", "x", "x\n")).toBe(
      "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n",
    );
    expect(unifiedDiff("f", "same\n", "same\n")).toBe("");
  });
});
