/**
 * git/tracked-control-files: a postflight marker, loop guard or return-metadata file tracked by git
 * (`specs/{N}_{slug}/.postflight-pending`, `.postflight-loop-guard`, `.return-meta.json`, and the legacy
 * `specs/.meta-return/return-meta.json`, `.meta/*-return-meta.json`).
 *
 * Why: these files describe one run in flight. The original's skills staged them with the task folder, so
 * they were committed 237× (markers), 42× (guards) and 710× (metadata); a committed marker made the
 * SubagentStop hook block every later stop, and cleanup commits ("sync: remove stale postflight-pending
 * marker") followed. Uses the model's git facts, so it reports nothing outside a git work tree.
 */

import { LEGACY_MARKER_FILES, MARKER_FILES, METADATA_FILE } from "../../../shared/baton-paths.js";
import { type Finding, finding, type LintModel, type Rule } from "../../rule-types.js";

const CONTROL_NAMES: readonly string[] = [...LEGACY_MARKER_FILES, ...MARKER_FILES, METADATA_FILE];
const LEGACY = /(^|\/)(\.meta-return\/return-meta\.json|\.meta\/[\w-]*return-meta\.json)$/;

export const trackedControlFiles: Rule = {
  id: "git/tracked-control-files",
  severity: "error",
  description: `Postflight markers, loop guards and ${METADATA_FILE} must not be tracked by git`,
  check(model: LintModel) {
    if (!model.tracked) return [];
    const out: Finding[] = [];
    for (const path of [...model.tracked].sort()) {
      if (!CONTROL_NAMES.includes(path.split("/").pop() ?? "") && !LEGACY.test(path)) continue;
      out.push(
        finding(
          trackedControlFiles,
          path,
          1,
          1,
          `${path} is tracked by git; it belongs to one run and must never be committed`,
          `Run \`git rm --cached ${path}\`, add ${CONTROL_NAMES.map((n) => `\`${n}\``).join(", ")} to .gitignore, and stage task folders by their artifact subfolders only.`,
        ),
      );
    }
    return out;
  },
};
