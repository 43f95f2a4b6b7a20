import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute } from "node:path";
import type { SettingValue } from "../../init/index.js";
import { BATON_DIR, batonKeyDir, CONFIG_FILE_NAMES, HOST_SETTINGS_FILES } from "../../shared/baton-paths.js";
import { hostHookScripts } from "../../shared/host-hook-scripts.js";
import { PERSON_COMMANDS } from "../../shared/person-commands.js";
import { specsPaths } from "../../state/index.js";
import { BATON_COMMANDS } from "./command-files.js";

/**
 * Claude Code's own sandbox, which `baton init` turns on: every Bash command of the session (the main
 * thread's and each sub-agent's) runs under bubblewrap with the store, Baton's folders, git's history,
 * Baton's configuration and the hosts' settings read-only and Baton's key unreadable. Baton's own
 * commands are the one exception: they write the store themselves, under their own checks. Claude Code
 * fails rather than run unsandboxed (`failIfUnavailable`), and no command may ask to leave the sandbox.
 */

/** Where docs/configuration.md tells people to keep holdout checks' files: as hidden as the key. */
const HOLDOUT_HOME = "~/.config/baton/holdout";
/** Where a holdout check's copy appears while it runs at GATE OUT (`.baton/holdout/`). */
const HOLDOUT_COPIES = `./${BATON_DIR}/holdout`;

/** The key folder as Claude Code's settings name it: `~/…` when under the home folder, `//…` otherwise. */
function keyDirRule(): string {
  const dir = batonKeyDir();
  const home = homedir();
  return dir.startsWith(`${home}/`) ? `~/${dir.slice(home.length + 1)}` : `/${dir}`;
}

/**
 * Paths no sandboxed command may write: the repository's relative to the session's folder (`./…`), a store
 * kept outside the repository by its absolute path (`//…`).
 */
function deniedWrites(root: string, specsDir: string): string[] {
  const store = specsPaths(specsDir.replace(/\/+$/, ""));
  return [
    store.state,
    store.todo,
    store.errors,
    store.archiveDir,
    store.internalDir,
    BATON_DIR,
    ".git",
    ...CONFIG_FILE_NAMES,
    ...HOST_SETTINGS_FILES,
    // Those a hook names now; the hooks' PreToolUse check reads them afresh on every call.
    ...hostHookScripts(root),
  ].map((p) => (isAbsolute(p) ? `/${p}` : `./${p}`));
}

export function sandboxSettings(root: string, bin: string, specsDir: string): SettingValue[] {
  const set = (path: string[], value: unknown): SettingValue => ({
    path: ["sandbox", ...path],
    value,
    kind: "set",
  });
  const item = (path: string[], value: unknown): SettingValue => ({ path, value, kind: "item" });
  const key = keyDirRule();
  return [
    set(["enabled"], true),
    set(["failIfUnavailable"], true),
    set(["allowUnsandboxedCommands"], false),
    ...[...BATON_COMMANDS, ...PERSON_COMMANDS].map((sub) =>
      item(["sandbox", "excludedCommands"], `${bin} ${sub}:*`),
    ),
    ...deniedWrites(root, specsDir).map((p) => item(["sandbox", "filesystem", "denyWrite"], p)),
    ...[key, HOLDOUT_HOME, HOLDOUT_COPIES].map((dir) => item(["sandbox", "filesystem", "denyRead"], dir)),
    // The sandbox covers Bash; Claude Code's own file tools answer to permission rules.
    ...[key, HOLDOUT_HOME, HOLDOUT_COPIES].flatMap((dir) =>
      ["Read", "Edit", "Write"].map((tool) => item(["permissions", "deny"], `${tool}(${dir}/**)`)),
    ),
  ];
}

/** What Claude Code's sandbox needs on Linux and is missing here (it then refuses to start a session). */
export function missingSandboxTools(): string[] {
  if (process.platform !== "linux") return [];
  return ["bwrap", "socat"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
}
