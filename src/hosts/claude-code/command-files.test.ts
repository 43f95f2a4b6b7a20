import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { yamlScalar } from "../../init/templates.js";
import { commandFiles } from "./command-files.js";

describe("command files", () => {
  it("frontmatter reads back as written, even for hints YAML would take for a list", () => {
    for (const value of ["[--dry-run]", "<task-number> [focus]", "a: b", "x #y", "Bash('/a b' gate-in:*)"]) {
      expect(parseYaml(`k: ${yamlScalar(value)}`)).toEqual({ k: value });
    }
    for (const file of commandFiles("node '/a b/bin/baton.js'")) {
      const fm = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(file.content)![1]!);
      const personOnly = /\/(approve|reject)\.md$/.test(file.path);
      expect(Object.keys(fm)).toEqual([
        "description",
        "argument-hint",
        "allowed-tools",
        ...(personOnly ? ["disable-model-invocation"] : []),
      ]);
      // Only the person types these: the model may not invoke them.
      if (personOnly) expect(fm["disable-model-invocation"]).toBe(true);
      expect(fm["allowed-tools"]).toContain("Bash(node '/a b/bin/baton.js' ");
    }
  });

  it("runs exactly one baton command per file, covered by its allowed-tools", () => {
    for (const file of commandFiles("baton")) {
      const bang = [...file.content.matchAll(/!`([^`]*)`/g)].map((m) => m[1]!);
      expect(bang).toHaveLength(1);
      const sub = /^baton (\S+)/.exec(bang[0]!)![1]!;
      expect(file.content).toContain(`Bash(baton ${sub}:*)`);
    }
  });
});
