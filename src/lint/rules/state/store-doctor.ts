import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { type Finding as DoctorFinding, runDoctorChecks, storeContext } from "../../../state/index.js";
import type { Finding, LintModel, Rule } from "../../rule-types.js";

// Findings about an entry that TODO.md is the one to fix in (doctor rewrites TODO from state.json).
const TODO_CODES = new Set(["TODO_UNREADABLE", "TODO_ENTRY_MISSING", "TODO_ENTRY_EXTRA", "STATUS_MISMATCH"]);

/**
 * The task store's own consistency checks (`baton doctor`), reported as lint findings so one command
 * covers the whole agent setup. This is the one rule that reads the disk: the doctor reads specs/ itself,
 * and specs/ is not part of the lint model. It runs only when the root holds the configured specs folder.
 */
export const stateDoctor: Rule = {
  id: "state/doctor",
  severity: "error",
  description: "`baton doctor` findings: state.json and TODO.md out of step, bad numbering, stray folders",
  check(model) {
    const config = model.config;
    if (!config) return [];
    const specs = toRoot(model, config.specsDir);
    if (specs === null || !model.exists(`${specs}/state.json`)) return [];
    const lines = new Map<string, string[]>();
    const linesOf = (file: string) => {
      let cached = lines.get(file);
      if (!cached) {
        try {
          cached = readFileSync(join(model.root, file), "utf8").split(/\r?\n/);
        } catch {
          cached = [];
        }
        lines.set(file, cached);
      }
      return cached;
    };
    return runDoctorChecks(storeContext(config)).map((found) => {
      const file = fileOf(model, specs, found);
      const line = found.task === undefined ? 1 : taskLine(linesOf(file), file, found.task);
      const fix = found.fixable ? `${found.fix} (\`baton doctor --fix\` does this)` : found.fix;
      const result: Finding = {
        rule: this.id,
        severity: found.severity,
        file,
        line,
        column: 1,
        message: `${found.message} [${found.code}]`,
        hint: fix.charAt(0).toUpperCase() + fix.slice(1),
      };
      return result;
    });
  },
};

/** The specs folder relative to the linted root; null when it lies outside it. */
function toRoot(model: LintModel, specsDir: string): string | null {
  const rel = relative(model.root, isAbsolute(specsDir) ? specsDir : join(model.root, specsDir)).replace(
    /\\/g,
    "/",
  );
  return rel.startsWith("..") || isAbsolute(rel) ? null : rel || ".";
}

function fileOf(model: LintModel, specs: string, found: DoctorFinding): string {
  if (found.path && !TODO_CODES.has(found.code)) {
    const rel = relative(model.root, found.path).replace(/\\/g, "/");
    if (!rel.startsWith("..")) return rel;
  }
  return `${specs}/${TODO_CODES.has(found.code) && found.code !== "TODO_ENTRY_MISSING" ? "TODO.md" : "state.json"}`;
}

/** The line of a task's TODO heading (`### 12. …`) or its state.json `"project_number": 12`. */
function taskLine(lines: string[], file: string, task: number): number {
  const pattern = file.endsWith(".md")
    ? new RegExp(`^###\\s+${task}\\.\\s`)
    : new RegExp(`"project_number"\\s*:\\s*${task}\\b`);
  const index = lines.findIndex((text) => pattern.test(text));
  return index === -1 ? 1 : index + 1;
}
