import { join } from "node:path";
import { fingerprint } from "../run/index.js";
import { type Gate, refuse } from "./gate-types.js";

/**
 * Baton's configuration and the hosts' hook settings decide how the next agent runs: which checks judge
 * it, whether it is sandboxed, whether Baton's hooks are asked at all. The sandbox keeps those that exist
 * read-only, but one that did not exist can be created (`.claude/settings.local.json` with
 * `disableAllHooks`, a `baton.config.json` with `"sandbox": "off"`), and git may ignore it, so no diff
 * shows it. Each is compared with its fingerprint at GATE IN, whatever git thinks of it.
 */
export const checkSettings: Gate = async (ctx) => {
  const before = ctx.baseline?.settings;
  if (!before) return { ok: true };
  const changed: string[] = [];
  for (const [path, was] of Object.entries(before)) {
    const now = fingerprint(join(ctx.repoRoot, path));
    if (now !== was)
      changed.push(`${path} (${was === null ? "created" : now === null ? "deleted" : "changed"})`);
  }
  if (changed.length === 0) return { ok: true };
  return refuse(
    ctx,
    "SETTINGS_CHANGED",
    `the work changed Baton's or a host's settings, or a script a host's hooks run: ${changed.join(", ")}. They decide how the next agent runs (its checks, its sandbox, Baton's hooks, code run outside any sandbox) and are never the agent's to write; restore them as they were (delete what was created) and run again`,
  );
};
