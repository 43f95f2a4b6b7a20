import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import {
  type FileChange,
  type HookMode,
  type InitManifest,
  planSettingsInstall,
  planSettingsUninstall,
  readSettings,
  settingsRemoval,
  settingsWrite,
} from "../../init/index.js";
import { HOOK_SECRET_ENV, LOCAL_SETTINGS_PATH } from "../../shared/hook-port.js";

const LOCAL_IGNORE_LINE = `/${LOCAL_SETTINGS_PATH}`;

/**
 * The installation's hook secret in Claude Code's local settings (`env.BATON_HOOK_SECRET`), kept across
 * re-runs, and that file kept out of git (this clone's `info/exclude`, when nothing ignores it yet). With
 * command hooks there is no server to call, so no secret; a local settings file git already tracks would
 * publish it, so none is written there either, and the reason is said.
 */
export async function hookSecretInstall(
  root: string,
  hooks: HookMode,
  previous: InitManifest | undefined,
): Promise<{ writes: FileChange[]; record: Partial<InitManifest>; warnings: string[] }> {
  const file = readSettings(root, LOCAL_SETTINGS_PATH);
  const recorded = previous?.localSettings;
  if (hooks === "command") {
    if (!recorded) return { writes: [], record: {}, warnings: [] };
    const planned = await planSettingsUninstall(file, recorded);
    const write = settingsRemoval(LOCAL_SETTINGS_PATH, file, planned.after);
    return { writes: write ? [write] : [], record: {}, warnings: [] };
  }
  if (git(root, ["ls-files", "--error-unmatch", LOCAL_SETTINGS_PATH]).ok) {
    return {
      writes: [],
      record: recorded ? { localSettings: recorded } : {},
      warnings: [
        `${LOCAL_SETTINGS_PATH} is committed, so Baton keeps no hook secret in it: any local process can call the hook server (Host and Origin are still checked). Untrack it (git rm --cached) and run baton init again.`,
      ],
    };
  }
  const env = (file.value["env"] ?? {}) as Record<string, unknown>;
  const kept = env[HOOK_SECRET_ENV];
  const secret =
    typeof kept === "string" && /^[0-9a-f]{64}$/.test(kept) ? kept : randomBytes(32).toString("hex");
  const value = { path: ["env", HOOK_SECRET_ENV], value: secret, kind: "set" as const };
  const planned = await planSettingsInstall(file, [], [], recorded, LOCAL_SETTINGS_PATH, [value]);
  const write = settingsWrite(LOCAL_SETTINGS_PATH, file, planned.after, planned.changed);
  return {
    writes: [...(write ? [write] : []), ...ignoreLocalSettings(root)],
    record: { localSettings: planned.record },
    warnings: [],
  };
}

/** Takes the secret out again (`--uninstall`); the exclude line stays, harmless and the user's to keep. */
export async function hookSecretUninstall(root: string, manifest: InitManifest): Promise<FileChange[]> {
  if (!manifest.localSettings) return [];
  const file = readSettings(root, LOCAL_SETTINGS_PATH);
  if (!file.exists) return [];
  const planned = await planSettingsUninstall(file, manifest.localSettings);
  const write = settingsRemoval(LOCAL_SETTINGS_PATH, file, planned.after);
  return write ? [write] : [];
}

function git(root: string, args: string[]): { ok: boolean; stdout: string } {
  const run = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  return { ok: run.status === 0, stdout: run.stdout ?? "" };
}

/** The line in this clone's `info/exclude` that keeps the local settings out of git, when nothing does yet. */
function ignoreLocalSettings(root: string): FileChange[] {
  const checked = spawnSync("git", ["check-ignore", "-q", "--no-index", LOCAL_SETTINGS_PATH], { cwd: root });
  if (checked.status !== 1) return [];
  const where = git(root, ["rev-parse", "--path-format=absolute", "--git-path", "info/exclude"]);
  const path = where.stdout.trim();
  if (!where.ok || !isAbsolute(path)) return [];
  let before: string | null = null;
  try {
    before = readFileSync(path, "utf8");
  } catch {
    before = null;
  }
  const base = before === null || before === "" || before.endsWith("\n") ? (before ?? "") : `${before}\n`;
  const after = `${base}# Claude Code's local settings hold this installation's Baton hook secret\n${LOCAL_IGNORE_LINE}\n`;
  return [
    {
      path: relative(root, path) || join(".git", "info", "exclude"),
      action: before === null ? "create" : "update",
      before,
      after,
    },
  ];
}
