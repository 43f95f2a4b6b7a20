import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { layeredPlanPhases } from "../../src/testing/generate-plan.js";
import { commitAll, plannedTaskRepo, runBaton } from "./helpers.js";

/**
 * A small real Node project whose `sum` has a bug, three `node:test` tests that catch it, and
 * `checks: [{"run": "npm test"}]`. An implementing agent told to make the tests pass can fix the code, or
 * change what the tests ask. Each agent here is a shell script run by the command runner: one per way of
 * changing the question, each refused, and the honest ones beside them, each accepted.
 */
export const PLAN = "specs/1_build_the_parser/plans/implementation-001.md";
export const TESTS = `import { test } from "node:test";
import assert from "node:assert/strict";
import { sum } from "../src/sum.js";

test("adds two numbers", () => assert.equal(sum(2, 3), 5));
test("adds negatives", () => assert.equal(sum(-2, -3), -5));
test("adds zero", () => assert.equal(sum(7, 0), 7));
`;
export const FIX = "export const sum = (a, b) => a + b;\n";

export function project(
  planNote = "",
  when: "both" | "operation" = "both",
  extra: object[] = [],
  checks: object[] = [{ name: "tests", run: "npm test", when }],
): string {
  const dir = plannedTaskRepo(layeredPlanPhases(1, 1), {
    checks: [...checks, ...extra],
    phases: { maxIterations: 1 },
  });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "sum", type: "module", scripts: { test: "node --test test/*.test.js" }, dependencies: {} }, null, 2)}\n`,
  );
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "src/sum.js"), "export const sum = (a, b) => a - b;\n");
  writeFileSync(join(dir, "test/sum.test.js"), TESTS);
  if (planNote) {
    const plan = readFileSync(join(dir, PLAN), "utf8");
    writeFileSync(join(dir, PLAN), plan.replace(/(### Phase 1:[^\n]*\n)/, `$1\n${planNote}\n`));
  }
  // The agent is a shell script kept in .git, outside the work tree the checks look at.
  const config = JSON.parse(readFileSync(join(dir, "baton.config.json"), "utf8"));
  config.runner = { type: "command", command: "sh", args: [join(dir, ".git", "agent.sh")] };
  writeFileSync(join(dir, "baton.config.json"), JSON.stringify(config));
  commitAll(dir, "a sum with a bug, and its tests");
  return dir;
}

/** The agent: its work (shell), then the phase summary and metadata an honest agent would write too. */
export function agent(dir: string, work: string): void {
  const metadata = `{"status":"implemented","summary":"Phase implemented","artifacts":[{"type":"summary","path":"SUMMARY"}],"metadata":{"session_id":"SESSION","agent_type":"shell"}}`;
  const script = [
    "set -e",
    work,
    `mkdir -p "$(dirname "$BATON_SUMMARY_FILE")"`,
    `printf '# Phase %s\\n\\n%s\\n\\nSession %s.\\n' "$BATON_PHASE_ID" "$(printf 'Done and verified. %.0s' $(seq 20))" "$BATON_SESSION_ID" > "$BATON_SUMMARY_FILE"`,
    `printf '%s' '${metadata}' | sed "s/SESSION/$BATON_SESSION_ID/; s#SUMMARY#$BATON_SUMMARY_FILE#" > "$BATON_METADATA_FILE"`,
  ].join("\n");
  writeFileSync(join(dir, ".git", "agent.sh"), script);
}

export function implement(dir: string, work: string, env: NodeJS.ProcessEnv = {}) {
  agent(dir, work);
  const result = runBaton(dir, ["implement", "1"], env);
  return { ...result, shown: `${result.stdout}\n${result.stderr}` };
}

export const fix = `printf '%s' '${FIX}' > src/sum.js`;
