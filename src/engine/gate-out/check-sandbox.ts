import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox, type SandboxPolicy } from "../../runners/index.js";
import { batonPaths } from "../../shared/baton-paths.js";
import { specsPaths } from "../../state/index.js";
import { repositoryProtectedPaths, sandboxPolicy } from "../run/index.js";

/** Where the checks of a result run: the repository, its store's folder, and the holdout folders of its checks. */
export interface CheckPlace {
  root: string;
  /** The task store's folder relative to the repository root (`specs`). */
  storePrefix: string;
  /** Every configured holdout folder: as secret from a visible check as from the agent. */
  holdouts: readonly string[];
  /**
   * Files of the user's configuration and PATH that changed during the run (changed-outside.ts): each
   * reads empty to the checks, which start as they would have before the run.
   */
  unseen?: readonly string[];
}

/** The place of checks run for a repository: its holdout folders are those of `checks`. */
export function checkPlace(
  root: string,
  storePrefix: string,
  checks: readonly { holdout: string | null }[],
): CheckPlace {
  return { root, storePrefix, holdouts: checks.flatMap((c) => (c.holdout === null ? [] : [c.holdout])) };
}

/**
 * The sandbox a check runs in: the check runs the agent's code, so it gets what the agent got — git's
 * history, the task store, Baton's folder and configuration and the hosts' settings read-only, Baton's
 * signing key not there at all — and the holdout folders hidden from every check but its own (which reads
 * its copy under `.baton/`), what the run changed in the user's configuration and PATH read empty, and no
 * network but a loopback of its own unless the check says `network: true`. Null where bubblewrap cannot run
 * here: the check then runs as before.
 */
export async function checkSandbox(
  place: CheckPlace,
  workRoot: string,
  check: { holdout: string | null; network?: boolean },
): Promise<SandboxPolicy | null> {
  const holdoutCheck = check.holdout !== null;
  if (!probeSandbox().ok) return null;
  const copies = batonPaths(place.root).holdoutDir;
  mkdirSync(copies, { recursive: true });
  const secrets = holdoutCheck ? [] : [...place.holdouts, copies];
  const store = specsPaths(join(place.root, place.storePrefix));
  const policy = await sandboxPolicy(
    place.root,
    repositoryProtectedPaths(place.root, store),
    workRoot,
    secrets,
  );
  return { ...policy, emptied: place.unseen ?? [], isolateNetwork: check.network !== true };
}
