import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_SECRET_ENV, LOCAL_SETTINGS_PATH } from "../shared/hook-port.js";

/**
 * The hook secret a server started here holds: the one in its environment (a session's SessionStart passes
 * its own, as Claude Code set it from the local settings), else the one `baton init` put in the repository's
 * local settings, else none ("": a clone whose installation has none yet, checked by Host and Origin alone).
 */
export function serverHookSecret(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const given = env[HOOK_SECRET_ENV];
  if (given !== undefined) return given;
  return installationHookSecret(root) ?? "";
}

/** The secret in `.claude/settings.local.json` (`env.BATON_HOOK_SECRET`), or null. */
export function installationHookSecret(root: string): string | null {
  try {
    const settings = JSON.parse(readFileSync(join(root, LOCAL_SETTINGS_PATH), "utf8")) as {
      env?: Record<string, unknown>;
    };
    const value = settings.env?.[HOOK_SECRET_ENV];
    return typeof value === "string" && value !== "" ? value : null;
  } catch {
    return null;
  }
}
