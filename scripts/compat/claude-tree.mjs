// Claude Code tree check of scripts/compat.mjs: `baton lint` reads the repository's own .claude/ tree, and
// `baton init --force` installs into it beside the user's hooks, then `--uninstall` leaves it byte for byte.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

function hookCounts(settings) {
  return Object.fromEntries(
    Object.entries(settings.hooks ?? {}).map(([event, groups]) => [event, groups.length]),
  );
}

export function checkClaudeTree({ dir, baton, bin, h, p }) {
  const settingsPath = join(dir, ".claude", "settings.json");
  if (!existsSync(settingsPath)) return "no .claude/settings.json: skipped";
  const original = readFileSync(settingsPath, "utf8");
  const before = hookCounts(JSON.parse(original));
  const lint = baton(["lint", "--json"], { codes: [0, 1] });
  const head = h.git(dir, "rev-parse", "HEAD").trim();
  baton(["init", "--force", "--bin", `node ${bin}`]);
  const installed = JSON.parse(readFileSync(settingsPath, "utf8"));
  const after = hookCounts(installed);
  for (const [event, n] of Object.entries(before)) {
    const baton = ["PreToolUse", "PostToolUse", "Stop", "SubagentStop"].includes(event) ? 1 : 0;
    p.check(
      after[event] === n + baton,
      `${event}: ${n} user hook group(s) before init, ${after[event]} after`,
    );
  }
  const inSession = baton(["lint", "--only", "frontmatter/,references/", "--json"], { codes: [0, 1] });
  const added = inSession.findings.filter((f) => /\.claude\/(agents\/baton-|commands\/)/.test(f.file));
  const baseline = lint.findings.filter((f) => /\.claude\/(agents\/baton-|commands\/)/.test(f.file));
  p.check(
    added.filter((f) => f.severity === "error").length <=
      baseline.filter((f) => f.severity === "error").length,
    "baton init added lint errors to .claude/commands or agents",
  );
  baton(["init", "--uninstall"]);
  p.check(
    readFileSync(settingsPath, "utf8") === original,
    "settings.json is not byte-identical after --uninstall",
  );
  const left = h.git(dir, "status", "--porcelain", "--untracked-files=all", "--", ".claude", ".baton").trim();
  p.check(left === "", `after --uninstall: ${left.split("\n").join(", ")}`);
  p.check(h.git(dir, "rev-parse", "HEAD").trim() === head, "init or uninstall made a commit");
  p.throwIfAny();
  return (
    `lint: ${lint.errors} errors, ${lint.warnings} warnings in ${lint.files} files (after steps 1-9; the ` +
    `original tree's findings are judged one by one in docs/lint-fixture.md); init --force kept every user hook group (${Object.entries(
      before,
    )
      .map(([e, n]) => `${e} ${n}`)
      .join(", ")}) and --uninstall left .claude/ byte-identical`
  );
}
