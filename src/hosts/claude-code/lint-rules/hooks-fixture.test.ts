import { beforeAll, describe, expect, it } from "vitest";
import { buildModel } from "../../../../test/support/lint-model.js";
import type { LintModel } from "../../../lint/rule-types.js";
import { sharedFixture } from "../../../testing/requirements.js";
import { missingScript } from "./missing-script.js";
import { notExecutable } from "./not-executable.js";
import { stopHookActive } from "./stop-hook-active.js";
import { swallowedErrors } from "./swallowed-errors.js";

const FIXTURE = sharedFixture("proofchecker") ?? "";

describe.skipIf(FIXTURE === "")("hooks rules on the proofchecker fixture", () => {
  let model: LintModel;
  beforeAll(async () => {
    model = await buildModel(FIXTURE);
  });

  it("finds every hook script (the ~/.config one is outside the repository) and all run via bash", async () => {
    expect(await missingScript.check(model)).toEqual([]);
    expect(await notExecutable.check(model)).toEqual([]);
  });

  it("flags subagent-postflight.sh: it reads stop_hook_active from its marker, never from stdin", async () => {
    const findings = await stopHookActive.check(model);
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([".claude/hooks/subagent-postflight.sh:95"]);
    expect(findings[0]?.message).toContain("in a file, never in the hook's stdin");
  });

  it("flags every `2>/dev/null || echo '{}'` wrapper in settings.json, and no script", async () => {
    const findings = await swallowedErrors.check(model);
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual(
      [52, 63, 72, 76, 87, 91, 95, 106, 110, 121].map((line) => `.claude/settings.json:${line}`),
    );
  });
});
