import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { type Gate, refuse } from "./gate-types.js";

/**
 * The commit must carry the work: a changed file that is a link leading out of the repository (into HOME,
 * `/tmp`, another checkout) is committed as the link alone, so the checks passed on code no clone has.
 * Refused with LINK_OUT_OF_REPO, naming the link and where it leads. A link inside the repository is work
 * like any file.
 */
export const refuseLinksOut: Gate = (ctx) => {
  const files = ctx.changes?.files ?? [];
  if (files.length === 0) return { ok: true };
  const root = realRoot(ctx.repoRoot);
  const out: string[] = [];
  for (const file of files) {
    const path = join(ctx.repoRoot, file);
    let target: string;
    try {
      if (!lstatSync(path).isSymbolicLink()) continue;
      target = readlinkSync(path);
    } catch {
      continue;
    }
    const lands = landing(path, target);
    const rel = relative(root, lands);
    if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) out.push(`${file} → ${target}`);
  }
  if (out.length === 0) return { ok: true };
  return refuse(
    ctx,
    "LINK_OUT_OF_REPO",
    `the work leads out of the repository through ${out.length === 1 ? "a link" : "links"}: ${out.join(", ")}; the commit would carry the link and not what it leads to, so no clone has the code the checks passed on. Put the file itself in the repository.`,
  );
};

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return resolve(root);
  }
}

/** Where a link leads, through every link on the way (a dangling one: as far as it resolves). */
function landing(path: string, target: string): string {
  const named = resolve(realRoot(dirname(path)), target);
  try {
    return realpathSync(named);
  } catch {
    return named;
  }
}
