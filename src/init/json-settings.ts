import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import * as z from "zod/mini";
import {
  FileFormatError,
  formatIssues,
  isCanonicalValue,
  type JsonDocument,
  parseJsonDocument,
  renderJsonDocument,
} from "../shared/index.js";
import { present } from "../shared/present.js";
import type { HookEntry, InitManifest } from "./manifest.js";
import type { FileChange } from "./plan.js";
import { applyValues, removeValues, type SettingValue } from "./settings-values.js";

/**
 * A host's JSON settings file (Claude Code's settings.json, Codex's hooks.json) and Baton's entries in it:
 * added beside the user's, recorded in the manifest by value, and taken out again on uninstall, each as a
 * minimal edit of the file's own text.
 */
type Json = Record<string, unknown>;
type ManifestSettings = NonNullable<InitManifest["settings"]>;

/** Only the parts init edits are checked; every other key is the user's and passes through untouched. */
const SettingsShape = z.looseObject({
  hooks: z.optional(z.record(z.string(), z.array(z.unknown()))),
  permissions: z.optional(z.looseObject({ allow: z.optional(z.array(z.string())) })),
});

export interface SettingsFile {
  path: string;
  exists: boolean;
  /** Null when the file is missing or blank: it is then written in the canonical 2-space form. */
  doc: JsonDocument | null;
  text: string | null;
  value: Json;
}

export function readSettings(root: string, rel: string): SettingsFile {
  const path = join(root, rel);
  if (!present(path)) return { path, exists: false, doc: null, text: null, value: {} };
  const text = readFileSync(path, "utf8");
  if (text.trim() === "") return { path, exists: true, doc: null, text, value: {} };
  const doc = parseJsonDocument(path, text);
  const shape = SettingsShape.safeParse(doc.value, { reportInput: true });
  const isObject = typeof doc.value === "object" && doc.value !== null && !Array.isArray(doc.value);
  if (!isObject || !shape.success) {
    const detail = shape.success ? "the top level must be an object" : formatIssues(shape.error.issues);
    throw new FileFormatError(
      "STATE_SCHEMA",
      path,
      `${path}: not a settings file its host can read (${detail})`,
      {
        hint: "Fix the file by hand (its host would reject it too); nothing was written.",
      },
    );
  }
  return { path, exists: true, doc, text, value: doc.value as Json };
}

function container(value: Json, path: string[], kind: "object" | "array", created: string[][]): unknown {
  let node: Json = value;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (node[key] === undefined) {
      node[key] = i === path.length - 1 && kind === "array" ? [] : {};
      created.push(path.slice(0, i + 1));
    }
    node = node[key] as Json;
  }
  return node;
}

function lookup(value: Json, path: string[]): unknown {
  let node: unknown = value;
  for (const key of path) node = (node as Json | undefined)?.[key];
  return node;
}

function removeOne(list: unknown, item: unknown): boolean {
  if (!Array.isArray(list)) return false;
  const index = list.findIndex((x) => isDeepStrictEqual(x, item));
  if (index !== -1) list.splice(index, 1);
  return index !== -1;
}

/** Takes Baton's recorded entries out of `value` (in place); returns those that were still there. */
function removeRecorded(value: Json, hooks: HookEntry[], permissions: string[]) {
  const removedHooks = hooks.filter((h) => removeOne(lookup(value, ["hooks", h.event]), h.group));
  const removedPermissions = permissions.filter((p) => removeOne(lookup(value, ["permissions", "allow"]), p));
  return { removedHooks, removedPermissions };
}

/** Each step is rendered as minimal edits of the previous text, so a removal and an addition in one
 * array stay two local edits instead of one rewrite of the user's array. */
async function renderSteps(file: SettingsFile, steps: Json[]): Promise<string> {
  if (file.doc === null) return `${JSON.stringify(steps[steps.length - 1], null, 2)}\n`;
  let doc = file.doc;
  let text = doc.text;
  for (const step of steps) {
    text = await renderJsonDocument(doc, step, isCanonicalValue(doc));
    doc = parseJsonDocument(file.path, text);
  }
  return text;
}

export interface SettingsInstall {
  after: string;
  changed: boolean;
  added: HookEntry[];
  removed: HookEntry[];
  permissionsAdded: string[];
  valuesAdded: SettingValue[];
  /** Values the user set otherwise: kept as they are, and said. */
  conflicts: string[];
  record: ManifestSettings;
}

/** Adds the hook groups and permission rules not there yet (in place); returns what is Baton's now. */
function addEntries(
  next: Json,
  hooks: HookEntry[],
  permissions: string[],
  previous: ManifestSettings | undefined,
  keys: string[][],
) {
  const ours = { hooks: [] as HookEntry[], permissions: [] as string[] };
  const added: HookEntry[] = [];
  const permissionsAdded: string[] = [];
  const wasOurs = (h: HookEntry) => previous?.hooks.some((p) => isDeepStrictEqual(p, h)) ?? false;
  for (const entry of hooks) {
    const list = container(next, ["hooks", entry.event], "array", keys) as unknown[];
    const present = list.some((g) => isDeepStrictEqual(g, entry.group));
    if (!present) {
      list.push(entry.group);
      added.push(entry);
    }
    if (!present || wasOurs(entry)) ours.hooks.push(entry);
  }
  for (const rule of permissions) {
    const allow = container(next, ["permissions", "allow"], "array", keys) as string[];
    const present = allow.includes(rule);
    if (!present) {
      allow.push(rule);
      permissionsAdded.push(rule);
    }
    if (!present || previous?.permissions.includes(rule)) ours.permissions.push(rule);
  }
  return { ours, added, permissionsAdded };
}

/**
 * Adds Baton's hook groups, permission rules and other values beside the user's. An identical entry
 * already present and not recorded as Baton's is the user's: it is left alone and never recorded, so
 * uninstall keeps it. Entries Baton recorded earlier but no longer wants (another --bin or --hooks) are
 * replaced.
 */
export async function planSettingsInstall(
  file: SettingsFile,
  hooks: HookEntry[],
  permissions: string[],
  previous: ManifestSettings | undefined,
  rel: string,
  values: SettingValue[] = [],
): Promise<SettingsInstall> {
  const keys: string[][] = [...(previous?.keys ?? [])];
  const cleaned = structuredClone(file.value);
  const stale = removeRecorded(
    cleaned,
    (previous?.hooks ?? []).filter((h) => !hooks.some((d) => isDeepStrictEqual(d, h))),
    (previous?.permissions ?? []).filter((p) => !permissions.includes(p)),
  );
  removeValues(
    cleaned,
    (previous?.values ?? []).filter((v) => !values.some((w) => isDeepStrictEqual(v, w))),
  );
  const next = structuredClone(cleaned);
  const { ours, added, permissionsAdded } = addEntries(next, hooks, permissions, previous, keys);
  const set = applyValues(next, values, previous?.values ?? [], keys);
  const changed = !isDeepStrictEqual(next, file.value) || (file.exists && file.doc === null);
  const after = changed ? await renderSteps(file, [cleaned, next]) : (file.text ?? "");
  const uniqueKeys = keys.filter((k, i) => keys.findIndex((o) => o.join("\0") === k.join("\0")) === i);
  return {
    after,
    changed: after !== file.text,
    added,
    removed: stale.removedHooks,
    permissionsAdded,
    valuesAdded: set.added,
    conflicts: set.conflicts,
    record: {
      path: rel,
      created: previous?.created ?? !file.exists,
      keys: uniqueKeys,
      hooks: ours.hooks,
      permissions: ours.permissions,
      ...(set.ours.length > 0 ? { values: set.ours } : {}),
    },
  };
}

export interface SettingsUninstall {
  /** Null: delete the file (Baton created it and nothing else is left in it). */
  after: string | null;
  removed: HookEntry[];
  permissionsRemoved: string[];
}

export async function planSettingsUninstall(
  file: SettingsFile,
  recorded: ManifestSettings,
): Promise<SettingsUninstall> {
  const next = structuredClone(file.value);
  const { removedHooks, removedPermissions } = removeRecorded(next, recorded.hooks, recorded.permissions);
  removeValues(next, recorded.values ?? []);
  // Deepest first, so emptying ["hooks","Stop"] can leave ["hooks"] empty in turn.
  for (const path of [...recorded.keys].sort((a, b) => b.length - a.length)) {
    const node = lookup(next, path);
    const empty = Array.isArray(node) ? node.length === 0 : Object.keys((node as Json) ?? {}).length === 0;
    if (node !== undefined && empty) delete (lookup(next, path.slice(0, -1)) as Json)[path[path.length - 1]!];
  }
  const after =
    recorded.created && Object.keys(next).length === 0
      ? null
      : isDeepStrictEqual(next, file.value)
        ? (file.text ?? "")
        : await renderSteps(file, [next]);
  return { after, removed: removedHooks, permissionsRemoved: removedPermissions };
}

/** The change that writes a host's settings file (created, or edited in place); null when nothing changes. */
export function settingsWrite(
  path: string,
  file: { exists: boolean; text: string | null },
  after: string,
  changed: boolean,
): FileChange | null {
  if (!changed) return null;
  return { path, action: file.exists ? "update" : "create", before: file.text, after };
}

/** The change that takes Baton's entries out again: the file edited, or deleted when Baton made it and nothing is left. */
export function settingsRemoval(
  path: string,
  file: { text: string | null },
  after: string | null,
): FileChange | null {
  if (after === file.text) return null;
  return { path, action: after === null ? "delete" : "update", before: file.text, after };
}
