import type { HookEntry, HookMode } from "./manifest.js";

/**
 * One file operation of a plan. `path` is relative to the repository root. `backup` copies `from` to
 * `path` (the user's file, before Baton overwrites `from`); `restore` moves the backup `from` back to `path`.
 */
export interface FileChange {
  path: string;
  action: "create" | "update" | "delete" | "backup" | "restore";
  before: string | null;
  after: string | null;
  from?: string;
}

export interface Conflict {
  path: string;
  reason: string;
  hint: string;
}

export interface InitPlan {
  root: string;
  mode: "install" | "uninstall";
  bin: string;
  hooks: HookMode;
  port?: number;
  /** The hosts this plan installs or removes, by name. */
  hosts?: string[];
  /** In the order they are applied. */
  changes: FileChange[];
  /** Install: files Baton would overwrite; with any of these nothing is written. */
  conflicts: Conflict[];
  /** Uninstall: Baton's files the user has changed since, left in place. */
  kept: { path: string; reason: string }[];
  /** Folders Baton created, to remove when left empty (uninstall only). */
  removeDirs: string[];
  settings: {
    path: string;
    hooksAdded: HookEntry[];
    hooksRemoved: HookEntry[];
    permissionsAdded: string[];
    permissionsRemoved: string[];
  };
  warnings: string[];
  /** Nothing to change: the repository already holds exactly what init would write. */
  upToDate: boolean;
  /** Uninstall found no manifest. */
  notInstalled?: boolean;
}
