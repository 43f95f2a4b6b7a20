import { constants, copyFileSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { BATON_DIR } from "../shared/baton-paths.js";
import { removeTemps } from "../shared/dead-temps.js";
import { IoError, writeFileAtomic } from "../shared/index.js";
import { unifiedDiff } from "./diff.js";
import type { FileChange, InitPlan } from "./plan.js";

export { DEFAULT_HOOK_PORT } from "../shared/hook-port.js";
export { binInsideRepository, onPath, resolveBin, shellQuote } from "./bin.js";
export { CI_PROVIDERS, type CiProvider, ciFiles } from "./ci.js";
export { unifiedDiff } from "./diff.js";
export {
  planSettingsInstall,
  planSettingsUninstall,
  readSettings,
  type SettingsFile,
  type SettingsInstall,
  type SettingsUninstall,
  settingsRemoval,
  settingsWrite,
} from "./json-settings.js";
export {
  HOOK_MODES,
  HOST_SANDBOX_SETTINGS,
  HookEntry,
  type HookMode,
  type HostSandboxSetting,
  InitManifest,
  installedBin,
  MANIFEST_PATH,
  readManifest,
  renderManifest,
  sha256,
} from "./manifest.js";
export type { Conflict, FileChange, InitPlan } from "./plan.js";
export {
  bashRule,
  defaultAgentFiles,
  frontmatter,
  GATE_DESCRIPTIONS,
  GATE_OPERATIONS,
  relayBody,
  type TemplateFile,
  yamlScalar,
} from "./templates.js";

export interface InitResult extends Omit<InitPlan, "changes"> {
  dryRun: boolean;
  /** False when nothing was written: a dry run, a conflict, or nothing to do. */
  written: boolean;
  changes: (Omit<FileChange, "before" | "after"> & { diff?: string })[];
}

/** The diff a dry run prints for one change; a backup shows the copy it creates. */
function diffOf(change: FileChange): string {
  if (change.action === "restore") {
    return `# ${change.from} moves back to ${change.path}\n${unifiedDiff(change.path, null, change.after)}`;
  }
  return unifiedDiff(change.path, change.before, change.after);
}

function apply(plan: InitPlan): void {
  const abs = (path: string) => join(plan.root, path);
  for (const change of plan.changes) {
    try {
      if (change.action === "backup") {
        // COPYFILE_EXCL: a backup never replaces an earlier one.
        copyFileSync(abs(change.from!), abs(change.path), constants.COPYFILE_EXCL);
      } else if (change.action === "restore") {
        renameSync(abs(change.from!), abs(change.path));
      } else if (change.action === "delete") {
        rmSync(abs(change.path), { force: true });
      } else {
        mkdirSync(dirname(abs(change.path)), { recursive: true });
        writeFileAtomic(abs(change.path), change.after ?? "");
      }
    } catch (error) {
      throw new IoError(`${change.path}: ${(error as Error).message}`, {
        cause: error,
        hint: "Fix the cause and run the same command again; it picks up where it stopped.",
      });
    }
  }
  for (const dir of plan.removeDirs) {
    try {
      if (readdirSync(abs(dir)).length === 0) rmdirSync(abs(dir));
    } catch {
      // Already gone, or not a folder any more: either way nothing of Baton's is left there.
    }
  }
}

/** The folders init writes in besides the hosts' own, where a killed init's temp files can be. */
const INIT_FOLDERS: ReadonlyArray<readonly [string, number]> = [
  [BATON_DIR, 1],
  [".github", 1],
  [".", 0],
];

/**
 * Writes a plan (unless a dry run or a conflict) and says what it did or would do. `hostFolders`: every folder
 * any host's init writes in (installed now or not: a killed `--host` init leaves its temps there too).
 */
export function applyInitPlan(plan: InitPlan, dryRun: boolean, hostFolders: readonly string[]): InitResult {
  // What a killed init left half-written goes first, whether or not anything else is to be done.
  const folders = [...hostFolders.map((dir) => [dir, 1] as const), ...INIT_FOLDERS];
  if (!dryRun) for (const [dir, depth] of folders) removeTemps(join(plan.root, dir), depth, true);
  const write = !dryRun && plan.conflicts.length === 0 && plan.changes.length > 0;
  if (write) apply(plan);
  return {
    ...plan,
    dryRun,
    written: write,
    changes: plan.changes.map(({ before: _b, after: _a, ...rest }) =>
      dryRun ? { ...rest, diff: diffOf({ ...rest, before: _b, after: _a }) } : rest,
    ),
  };
}
export type { SettingValue } from "./settings-values.js";
