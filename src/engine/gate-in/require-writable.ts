import { accessSync, constants } from "node:fs";
import { dirname, join, relative } from "node:path";
import { batonPaths } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import { present } from "../../shared/present.js";
import type { GateInStep } from "./gate-in-step.js";

/**
 * Everything the run writes after its agent started must be writable before the agent starts: Baton's
 * folder (events, logs, the holdout copies), the task folder (the evidence), the store's folders, and git's
 * (objects, refs, the index) when the run commits. Found after the agent, a read-only one would leave a
 * paid run that cannot be recorded. A path not there yet is judged by the folder it will be made in.
 * (`access` is the kernel's answer for this user: permission bits, a read-only mount, root's exemption.)
 */
export const requireWritable: GateInStep = async ({ run }) => {
  const root = run.config.root;
  const places = [batonPaths(root).dir, run.folder, run.ctx.paths.dir, run.ctx.paths.internalDir];
  if (run.config.commit) places.push(...(await gitPlaces(root)));
  for (const place of places) {
    const at = nearestExisting(place);
    try {
      accessSync(at, constants.W_OK);
    } catch (error) {
      const shown = relative(root, at) || ".";
      const why =
        (error as NodeJS.ErrnoException).code === "EROFS" ? "on a read-only file system" : "not writable";
      return {
        ok: false,
        message: `${shown}/ is ${why} for this user, and the run writes there once its agent has finished (${purposeOf(place, run.folder, root)}); make it writable (chmod/chown) or run Baton as its owner; nothing was started`,
      };
    }
  }
  return { ok: true };
};

function nearestExisting(path: string): string {
  let at = path;
  while (!present(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

function purposeOf(place: string, folder: string, root: string): string {
  if (place === folder) return "the task's evidence and artifacts";
  if (place === batonPaths(root).dir) return "Baton's events, logs and check copies";
  if (place.includes(".git") || place.endsWith("/objects") || place.endsWith("/refs")) return "the commit";
  return "the task store";
}

/** git's folders a commit writes: the git dir (its index) and the common dir's objects and refs. */
async function gitPlaces(root: string): Promise<string[]> {
  const dirs = await runGit(root, ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]);
  if (!dirs.ok) return [];
  const [gitDir, common] = dirs.stdout.split("\n");
  if (!gitDir || !common) return [];
  return [gitDir, join(common, "objects"), join(common, "refs")];
}
