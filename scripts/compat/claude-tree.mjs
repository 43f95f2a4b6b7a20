// Claude Code tree check of scripts/compat.mjs: `baton lint` reads the repository's own .claude/ tree, and
// `baton init --force` installs into it beside the user's hooks, then `--uninstall` leaves it byte for byte.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

function hookCounts(settings) {
  return Object.fromEntries(
    Object.entries(settings.hooks ?? {}).map(([event, groups]) => [event, groups.length]),
  );
}

// The user's groups of one event, in their order, after init: every group init did not add. A group is
// Baton's when each of its handlers calls Baton (the bin, the resident forwarder, or the hook server).
function isBatonGroup(group, bin) {
  const handlers = group.hooks ?? [];
  return (
    handlers.length > 0 &&
    handlers.every(
      (h) =>
        (typeof h.command === "string" && (h.command.includes(bin) || h.command.includes("baton-hook"))) ||
        (typeof h.url === "string" && /^http:\/\/127\.0\.0\.1:\d+\/hooks\//.test(h.url)),
    )
  );
}

function checkUserGroupsKept(before, installed, bin, p) {
  for (const [event, groups] of Object.entries(before.hooks ?? {})) {
    const after = installed.hooks?.[event] ?? [];
    const users = after.filter((g) => !isBatonGroup(g, bin));
    p.check(
      JSON.stringify(users) === JSON.stringify(groups),
      `${event}: ${groups.length} user hook group(s) before init, ${users.length} user group(s) after (of ${after.length}), or their content changed`,
    );
    p.check(
      after.length - users.length <= 1,
      `${event}: init added ${after.length - users.length} groups, expected at most 1`,
    );
  }
}

export function checkClaudeTree({ dir, baton, bin, h, p }) {
  const settingsPath = join(dir, ".claude", "settings.json");
  if (!existsSync(settingsPath)) return "no .claude/settings.json: skipped";
  const original = readFileSync(settingsPath, "utf8");
  const lint = baton(["lint", "--json"], { codes: [0, 1] });
  const head = h.git(dir, "rev-parse", "HEAD").trim();
  baton(["init", "--force", "--bin", `node ${bin}`]);
  const installed = JSON.parse(readFileSync(settingsPath, "utf8"));
  checkUserGroupsKept(JSON.parse(original), installed, bin, p);
  const before = hookCounts(JSON.parse(original));
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
