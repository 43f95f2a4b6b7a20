import { isDeepStrictEqual } from "node:util";
import * as z from "zod/mini";

/**
 * Settings init adds beyond hooks and permission rules (Claude Code's `sandbox`): a value set at a path
 * the user left unset, or an item added to a list. Each is recorded by value, so uninstall takes back
 * exactly what is still Baton's; a value the user set differently is theirs, kept, and reported.
 */
export const SettingValue = z.object({
  path: z.array(z.string()),
  value: z.unknown(),
  /** `set`: the value at `path`; `item`: one item of the list at `path`. */
  kind: z.enum(["set", "item"]),
});
export type SettingValue = z.infer<typeof SettingValue>;

type Json = Record<string, unknown>;

function parentOf(value: Json, path: string[], created: string[][]): Json | undefined {
  let node: Json = value;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (node[key] === undefined) {
      node[key] = {};
      created.push(path.slice(0, i + 1));
    }
    const next = node[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) return undefined;
    node = next as Json;
  }
  return node;
}

const shown = (s: SettingValue) =>
  `${s.path.join(".")}${s.kind === "item" ? `[] ${JSON.stringify(s.value)}` : ""}`;

/** Adds each wanted value (in place); returns those now Baton's, those it added, and the user's conflicts. */
export function applyValues(
  next: Json,
  wanted: readonly SettingValue[],
  previous: readonly SettingValue[],
  created: string[][],
): { ours: SettingValue[]; added: SettingValue[]; conflicts: string[] } {
  const ours: SettingValue[] = [];
  const added: SettingValue[] = [];
  const conflicts: string[] = [];
  const wasOurs = (s: SettingValue) => previous.some((p) => isDeepStrictEqual(p, s));
  for (const setting of wanted) {
    const parent = parentOf(next, setting.path, created);
    const key = setting.path[setting.path.length - 1]!;
    if (parent === undefined) {
      conflicts.push(`${setting.path.join(".")}: a parent is not an object`);
      continue;
    }
    if (setting.kind === "item") {
      if (parent[key] === undefined) {
        parent[key] = [];
        created.push(setting.path);
      }
      const list = parent[key];
      if (!Array.isArray(list)) {
        conflicts.push(`${setting.path.join(".")}: not a list`);
        continue;
      }
      const present = list.some((x) => isDeepStrictEqual(x, setting.value));
      if (!present) {
        list.push(setting.value);
        added.push(setting);
      }
      if (!present || wasOurs(setting)) ours.push(setting);
    } else if (parent[key] === undefined) {
      parent[key] = setting.value;
      added.push(setting);
      ours.push(setting);
    } else if (isDeepStrictEqual(parent[key], setting.value)) {
      if (wasOurs(setting)) ours.push(setting);
    } else {
      conflicts.push(
        `${shown(setting)} is ${JSON.stringify(parent[key])}, not ${JSON.stringify(setting.value)}`,
      );
    }
  }
  return { ours, added, conflicts };
}

function lookup(value: Json, path: string[]): unknown {
  let node: unknown = value;
  for (const key of path) node = (node as Json | undefined)?.[key];
  return node;
}

/** Takes Baton's recorded values out of `value` (in place), each only while it is still as Baton set it. */
export function removeValues(value: Json, recorded: readonly SettingValue[]): SettingValue[] {
  return recorded.filter((setting) => {
    const parent = lookup(value, setting.path.slice(0, -1)) as Json | undefined;
    const key = setting.path[setting.path.length - 1]!;
    if (typeof parent !== "object" || parent === null) return false;
    if (setting.kind === "set") {
      if (!isDeepStrictEqual(parent[key], setting.value)) return false;
      delete parent[key];
      return true;
    }
    const list = parent[key];
    if (!Array.isArray(list)) return false;
    const index = list.findIndex((x) => isDeepStrictEqual(x, setting.value));
    if (index !== -1) list.splice(index, 1);
    return index !== -1;
  });
}
