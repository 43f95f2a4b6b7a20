/**
 * delegation/unverified-delegation: a command or skill calls an agent (Task/Agent tool, `subagent_type`,
 * "Invoke the x-agent") and nothing after that call checks what the agent produced.
 *
 * Definition. Delegation sites: see sites.ts. Verification: any later line that reads or checks the
 * agent's output: reads `.return-meta.json` / the metadata file (jq, cat, Read, parse, validate, `-f`),
 * `baton gate-out`, a GATE OUT step, a file test (`[ -f … ]`, `test -s …`), "verify/check/confirm …
 * artifact/report/plan/status/return", "… artifact exists", or a jq read of `.status`. Every site must be
 * followed by one (the last site is what is reported when none follows it), so a second delegation
 * added at the end of a file without its own check is caught.
 *
 * Why: the original trusted the agent's last message. Agents printed JSON instead of writing the
 * metadata file, stopped early, or claimed work they had not done (Lean tasks marked done with `sorry`
 * left); without a read of the metadata file and a check that the artifacts exist, the status moved on
 * anyway, leaving tasks `[RESEARCHED]` with no report.
 */

import { METADATA_FILE } from "../../../shared/baton-paths.js";
import { type Finding, finding, type LintModel, type Rule } from "../../rule-types.js";
import { textLines } from "./delegation-scan.js";
import { delegationSites, isVerification, ORCHESTRATOR_KINDS } from "./sites.js";

export const unverifiedDelegation: Rule = {
  id: "delegation/unverified-delegation",
  severity: "warning",
  description: "A command or skill that delegates to an agent must verify the result afterwards",
  check(model: LintModel) {
    const out: Finding[] = [];
    for (const file of model.files) {
      if (!ORCHESTRATOR_KINDS.has(file.kind)) continue;
      const lines = textLines(file);
      const sites = delegationSites(lines);
      const last = sites[sites.length - 1];
      if (!last) continue;
      const verified = lines.some((l) => l.line > last.line && !l.fence && isVerification(l.text));
      if (verified) continue;
      out.push(
        finding(
          unverifiedDelegation,
          file.path,
          last.line,
          1,
          `delegates to an agent here, but nothing after it checks the result (${sites.length === 1 ? "1 delegation" : `${sites.length} delegations`})`,
          `After the agent returns, read and validate specs/{N}_{slug}/${METADATA_FILE} and check that each artifact it lists exists ` +
            "(or run `baton gate-out`, which does both) before changing status or committing.",
        ),
      );
    }
    return out;
  },
};
