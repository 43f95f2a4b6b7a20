import { basename, isAbsolute, normalize, relative, sep } from "node:path";
import { BATON_DIR } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import type { GitBaseline } from "../../state/index.js";
import { changedSince, isControlFile } from "../run/index.js";
import { type Gate, type GateOutContext, type GateResult, refuse } from "./gate-types.js";

/** A `files_changed` entry as a repository-relative path, or why it cannot be one. */
export function claimedPath(
  repoRoot: string,
  file: string,
):
  | { ok: true; path: string }
  | { ok: false; code: "FILE_OUTSIDE_REPO" | "FILE_IS_REPO_ROOT"; message: string } {
  const rel = normalize(isAbsolute(file) ? relative(repoRoot, file) : file).replace(/[/\\]+$/, "");
  if (rel === "" || rel === ".") {
    return {
      ok: false,
      code: "FILE_IS_REPO_ROOT",
      message: `files_changed lists "${file}", the whole repository: name the files the work changed`,
    };
  }
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    return {
      ok: false,
      code: "FILE_OUTSIDE_REPO",
      message: `files_changed lists ${file}, outside the repository`,
    };
  }
  return { ok: true, path: rel.split(sep).join("/") };
}

/** Every `files_changed` entry must name something inside the repository and not the repository itself. */
export function checkClaimedPaths(ctx: GateOutContext): GateResult {
  for (const file of ctx.metadata?.files_changed ?? []) {
    const claimed = claimedPath(ctx.repoRoot, file);
    if (!claimed.ok) return refuse(ctx, claimed.code, claimed.message);
  }
  return { ok: true };
}

/** What changed since a baseline outside the task store, Baton's folder and control files: the work. */
export function workChangedSince(root: string, baseline: GitBaseline, store: string): Promise<string[]> {
  // Baton's own folder (its hook log, its evidence keys) is never the agent's work.
  const ignore = (path: string) =>
    path === store ||
    path.startsWith(`${store}/`) ||
    path.startsWith(`${BATON_DIR}/`) ||
    isControlFile(basename(path));
  return changedSince(root, baseline, ignore);
}

/**
 * The substance of an implementation, from git rather than the agent's word: what changed since the
 * baseline GATE IN took, outside the task store. A result that claims `implemented` with no change is
 * refused (NO_CHANGES), so is a listed file that did not change (CLAIMED_UNCHANGED); changes the agent
 * did not list are kept as evidence. Runs for implement (whole operation or one phase) when git is there.
 */
export const checkChanges: Gate = async (ctx) => {
  const claimedOk = checkClaimedPaths(ctx);
  if (!claimedOk.ok) return claimedOk;
  if (ctx.operation !== "implement" || !ctx.baseline) return { ok: true };
  const meta = ctx.metadata!;
  const store = ctx.storePrefix;
  const changed = await workChangedSince(ctx.repoRoot, ctx.baseline, store);
  const claimed = (meta.files_changed ?? []).map(
    (f) => (claimedPath(ctx.repoRoot, f) as { path: string }).path,
  );
  const covers = (claim: string, path: string) => path === claim || path.startsWith(`${claim}/`);
  ctx.changes = {
    base: ctx.baseline.commit,
    files: changed,
    unlisted: claimed.length === 0 ? [] : changed.filter((p) => !claimed.some((c) => covers(c, p))),
  };
  const unchanged = claimed.filter((c) => !changed.some((p) => covers(c, p)));
  const ignored = unchanged.length > 0 ? await ignoredPaths(ctx.repoRoot, unchanged) : [];
  if (ignored.length > 0) {
    return refuse(
      ctx,
      "CLAIMED_IGNORED",
      `files_changed lists ${ignored.map((i) => `${i.path} (ignored by ${i.rule})`).join(", ")}: git ignores ${ignored.length === 1 ? "it" : "them"}, so the change can be neither committed nor verified; leave ignored files out of files_changed, or un-ignore what the work is meant to change`,
    );
  }
  if (meta.status === "implemented" && changed.length === 0) {
    return refuse(
      ctx,
      "NO_CHANGES",
      `the agent reported implemented, but nothing outside ${store}/ changed since ${ctx.baseline.commit?.slice(0, 12) ?? "GATE IN"}`,
    );
  }
  if (unchanged.length > 0) {
    return refuse(
      ctx,
      "CLAIMED_UNCHANGED",
      `files_changed lists ${unchanged.join(", ")}, which did not change since GATE IN`,
    );
  }
  return { ok: true };
};

/**
 * The untracked paths among `paths` that git ignores, each with the rule (`.gitignore:3: *.md`): their
 * changes never show in git's status, so an agent that lists one did change it, but no commit can carry it.
 */
async function ignoredPaths(
  root: string,
  paths: readonly string[],
): Promise<Array<{ path: string; rule: string }>> {
  const result = await runGit(root, ["check-ignore", "-v", "-z", "--stdin"], {
    stdin: paths.map((p) => `${p}\0`).join(""),
  });
  // Exit 1: none is ignored.
  if (!result.ok && result.exitCode !== 1) return [];
  const fields = result.stdout.split("\0");
  const found: Array<{ path: string; rule: string }> = [];
  for (let i = 0; i + 3 < fields.length; i += 4) {
    found.push({ path: fields[i + 3]!, rule: `${fields[i]}:${fields[i + 1]}: ${fields[i + 2]}` });
  }
  return found;
}
