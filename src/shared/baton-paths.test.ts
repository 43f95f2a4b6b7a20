import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** Names of Baton's own files and folders: written out anywhere but baton-paths.ts, they drift. */
const OWN_NAMES =
  /\.(?:baton-)?postflight-|\.return-meta|events\.jsonl|hooks\.jsonl|init\.json|serve\.port|journal\.json|stop-blocks|events-index|board\.json|baton-[*\d].*\.tmp|(^|[/"'`\s\\])\.baton([/"'`\s\\]|\\b|$)/;

function literalsNaming(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const literal =
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isRegularExpressionLiteral(node);
    if (literal && OWN_NAMES.test(node.getText(source))) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line} ${node.getText(source).slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("Baton's own file names", () => {
  it("are written out only in src/shared/baton-paths.ts", () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "src"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "src/shared/baton-paths.ts");
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(literalsNaming)).toEqual([]);
  });

  it("the guard itself sees a name in a string, a template and a regular expression", () => {
    for (const text of [
      '".postflight-pending"',
      `\`\${dir}/.return-meta.json\``,
      "/\\.baton\\b/",
      '".baton"',
    ]) {
      expect(OWN_NAMES.test(text), text).toBe(true);
    }
    expect(OWN_NAMES.test('"a.baton.example"')).toBe(false);
  });
});
