import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { INIT_MANIFEST } from "../shared/baton-paths.js";
import { FileFormatError, formatIssues, parseJsonDocument } from "../shared/index.js";
import { present } from "../shared/present.js";
import { CI_PROVIDERS } from "./ci.js";
import { SettingValue } from "./settings-values.js";

export const MANIFEST_PATH = INIT_MANIFEST;

/** How Claude Code reaches Baton's hooks: a command per call, HTTP to a resident server, or a forwarder to it. */
export const HOOK_MODES = ["command", "http", "resident"] as const;
export type HookMode = (typeof HOOK_MODES)[number];

/** `baton init --host-sandbox off`: the host's own sandbox left as the user has it (`on`: Baton configures it). */
export const HOST_SANDBOX_SETTINGS = ["on", "off"] as const;
export type HostSandboxSetting = (typeof HOST_SANDBOX_SETTINGS)[number];

export const HookEntry = z.object({ event: z.string(), group: z.record(z.string(), z.unknown()) });
export type HookEntry = z.infer<typeof HookEntry>;

/**
 * What `baton init` added, so `--uninstall` removes exactly that: files with the hash of what was
 * written, settings entries by value, and the containers (keys, folders) it had to create.
 */
/** What init added to one JSON settings file (Claude Code's settings.json, Codex's hooks.json). */
const SettingsRecord = z.object({
  path: z.string(),
  created: z.boolean(),
  /** Object/array keys Baton created (e.g. ["hooks","Stop"]); removed on uninstall when left empty. */
  keys: z.array(z.array(z.string())),
  hooks: z.array(HookEntry),
  permissions: z.array(z.string()),
  /** Other values init set or added (Claude Code's sandbox), by value. */
  values: z.optional(z.array(SettingValue)),
});

export const InitManifest = z.object({
  version: z.literal(1),
  bin: z.string(),
  hooks: z.enum(HOOK_MODES),
  port: z.optional(z.number()),
  ci: z.optional(z.enum(CI_PROVIDERS)),
  hostSandbox: z.optional(z.enum(HOST_SANDBOX_SETTINGS)),
  files: z.array(
    z.object({
      path: z.string(),
      sha256: z.string(),
      /** Where `--force` moved the user's file; uninstall puts it back. */
      backup: z.optional(z.string()),
    }),
  ),
  /** Folders that did not exist before; removed on uninstall when empty. */
  dirs: z.array(z.string()),
  /** Claude Code's part (absent when only another host was installed, `--host opencode`). */
  settings: z.optional(SettingsRecord),
  /** Claude Code's local settings (`.claude/settings.local.json`): the installation's hook secret in `env`. */
  localSettings: z.optional(SettingsRecord),
  /** `baton init --mcp`: `mcpServers.baton` in Claude Code's `.mcp.json`. */
  mcp: z.optional(SettingsRecord),
  /** `--host codex`: Baton's hooks in `.codex/hooks.json`, recorded like the Claude Code settings. */
  codex: z.optional(SettingsRecord),
  /** `--host opencode`: Baton's deny rules in `permission.edit` of opencode.json(c). */
  opencode: z.optional(
    z.object({
      path: z.string(),
      created: z.boolean(),
      /** Each rule Baton set, with the action it replaced (`was`), given back on uninstall. */
      rules: z.array(z.object({ pattern: z.string(), was: z.optional(z.string()) })),
      /** A global action Baton turned into the `*` rule of an object, and the objects it created. */
      permissionWas: z.optional(z.string()),
      editWas: z.optional(z.string()),
      madePermission: z.optional(z.boolean()),
      madeEdit: z.optional(z.boolean()),
      /** The file as Baton found it, and the hash of what Baton wrote: uninstall restores it byte for byte. */
      original: z.optional(z.string()),
      afterSha256: z.optional(z.string()),
      /** `--mcp`: Baton set `mcp.baton` (`mcpWas`: the value it replaced), and made `mcp` itself when `madeMcp`. */
      mcpServer: z.optional(z.boolean()),
      mcpWas: z.optional(z.unknown()),
      madeMcp: z.optional(z.boolean()),
    }),
  ),
});
export type InitManifest = z.infer<typeof InitManifest>;

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function readManifest(root: string): { manifest: InitManifest; text: string } | null {
  const path = join(root, MANIFEST_PATH);
  if (!present(path)) return null;
  const text = readFileSync(path, "utf8");
  const parsed = InitManifest.safeParse(parseJsonDocument(path, text).value);
  if (!parsed.success) {
    throw new FileFormatError("STATE_SCHEMA", path, `${path}: ${formatIssues(parsed.error.issues)}`, {
      hint: `Restore it with \`git checkout ${MANIFEST_PATH}\`, or delete it: Baton then treats the files it installed as yours.`,
    });
  }
  return { manifest: parsed.data, text };
}

/** The manifest's keys in the order every Baton has written them; the hosts' records sit where they always did. */
const KEY_ORDER = [
  "version",
  "bin",
  "hooks",
  "port",
  "ci",
  "hostSandbox",
  "codex",
  "opencode",
  "files",
  "dirs",
  "settings",
];

/**
 * Stable text (no timestamps, keys in one order whichever host planned first), so a second `baton init`
 * that changes nothing leaves it byte-identical.
 */
export function renderManifest(manifest: InitManifest): string {
  const rank = (key: string) => (KEY_ORDER.includes(key) ? KEY_ORDER.indexOf(key) : KEY_ORDER.length);
  const ordered = Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => rank(a) - rank(b)));
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** The command prefix the installed slash commands use, for `gate-in` to print a matching gate-out line. */
export function installedBin(root: string): string | undefined {
  try {
    return readManifest(root)?.manifest.bin;
  } catch {
    return undefined;
  }
}
