// Regenerates docs/lint-fixture.md: every finding of `baton lint` on the proofchecker fixture, with the
// verdict reached by reading each flagged line. Usage: node scripts/lint-fixture-doc.mjs [fixture-dir]
// A rule without a verdict below fails the script: a new finding must be read before it is documented.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const fixture = resolve(process.argv[2] ?? join(root, "..", "shared", "fixtures", "proofchecker"));
const run = spawnSync(process.execPath, [join(root, "bin", "baton.js"), "lint", fixture, "--json"], {
  encoding: "utf8",
  maxBuffer: 64 << 20,
});
const report = JSON.parse(run.stdout);

const VERDICTS = {
  "delegation/instructed-store-write":
    "real, with one judgement call: CLAUDE.md and the rules tell the model to update state.json then TODO.md, to update the status before and after work, to log to errors.json, or to commit with the session id in the body — each now refused by a session or done by Baton itself; `git-workflow.md:30` is a commit-message table row (`sync: reconcile TODO.md and state.json`) that names such a write as a task the model performs",
  "delegation/direct-state-write":
    "real: the line finishes a `jq … > tmp && mv` (or `sed -i`) write onto state.json, TODO.md, archive/state.json or errors.json, bypassing any lock; the 551-of-676 drift and the 615 lost archive entries came from exactly these pipelines",
  "references/unknown-agent":
    "real: no `.claude/agents/<name>.md` defines this agent (the tree has 13, none of these); a model following this routing gets `Agent type '<name>' not found`",
  "delegation/returns-completed":
    "real: a return-format example or instruction tells agents to report `completed`, the word that made the original stop before its postflight",
  "state/doctor":
    "real: `baton doctor` on the same specs/ finds it (status drift between state.json and TODO.md, task 619 active and archived, artifacts that do not exist, leftover `.return-meta.json` files)",
  "hooks/swallowed-errors":
    "real: the hook command ends in `2>/dev/null || echo '{}'`, so a failing hook is silently read as \"no opinion\"",
  "frontmatter/nonstandard-yaml":
    "real: the frontmatter is not valid YAML (`argument-hint: [X] [--y]` or an unquoted `key: a: b`); only Claude Code's quoting fallback reads it, any other YAML parser (and any linter of YAML) rejects the block",
  "frontmatter/unknown-key":
    "real: `deprecated`, `deprecated_reason` and `deprecated_date` are not agent frontmatter keys; Claude Code ignores them, so the agent is still offered",
  "frontmatter/missing-description":
    "real: the command has no frontmatter, so Claude Code lists it without a description",
  "git/heredoc-no-expand":
    "real: `$session_id`, `$task_number` and `$(date…)` sit inside `<< 'EOF'`, so the commit message keeps them literally",
  "references/missing-file": "real: `@.claude/command/review.md` does not exist (the folder is `commands/`)",
  "hooks/stop-hook-active":
    "real: the SubagentStop hook blocks but never reads `stop_hook_active` from its input (it looks for the word in its marker file), so it can block until Claude Code's cap of 9",
  "delegation/conditional-delegation":
    'real: "If wave has single phase: Execute directly" lets the orchestrator do a phase itself instead of delegating',
  "delegation/unverified-delegation":
    "real: the fallback path invokes skill-planner through the Task tool and nothing after it checks the result",
};

const rows = report.findings.map((f) => {
  const verdict = VERDICTS[f.rule];
  if (!verdict) throw new Error(`no verdict for rule ${f.rule} (${f.file}:${f.line}): read it, then add one`);
  return `| \`${f.file}:${f.line}:${f.column}\` | \`${f.rule}\` | ${f.severity} | ${f.message.replaceAll("|", "\\|")} |`;
});
const counts = {};
for (const f of report.findings) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
const text = [
  "# `baton lint` on the proofchecker fixture",
  "",
  "Every finding of `baton lint` on `../shared/fixtures/proofchecker` (its whole `.claude/` tree, 298 files, and",
  "its `specs/`), with the verdict reached by reading each flagged line. Regenerate with",
  "`node scripts/lint-fixture-doc.mjs`; it refuses a rule that has no verdict yet.",
  "",
  `${report.files} files, ${report.errors} errors, ${report.warnings} warnings.`,
  "",
  "## Verdicts, per rule",
  "",
  "| rule | findings | verdict |",
  "|---|---|---|",
  ...Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([rule, n]) => `| \`${rule}\` | ${n} | ${VERDICTS[rule].replaceAll("|", "\\|")} |`),
  "",
  "No false positive was found. Lines that only look alike are not flagged (checked while writing the rules):",
  "mock sub-agents in test docs, `specs/reviews/state.json` (not Baton's), nested `teammate_results` statuses,",
  '"MUST NOT … completed" lists, task statuses in state.json examples, Stop hooks that never block, value',
  'fallbacks such as `cat … 2>/dev/null || echo "0"`, commit templates with `{session_id}` placeholders.',
  "",
  "## Every finding",
  "",
  "| where | rule | severity | message |",
  "|---|---|---|---|",
  ...rows,
  "",
].join("\n");
writeFileSync(join(root, "docs", "lint-fixture.md"), text);
console.log(`docs/lint-fixture.md: ${report.findings.length} findings, ${Object.keys(counts).length} rules`);
