/**
 * READY: `buildModel` and `modelFromTexts` are stable for rule authors (see rule-types.ts for the shape).
 *
 * Both entry points hand raw `{ path, text, executable }` records to `assembleModel`, so a model built from a
 * test's texts is normalised exactly like one read from disk. Hook `scripts` hold repository paths only;
 * `~/…`, `$HOME/…` and absolute paths outside the root go to `externalScripts`, as written.
 */

import { join, resolve } from "node:path";
import { parseFrontmatter } from "../shared/frontmatter.js";
import { present } from "../shared/present.js";
import { HostLayout } from "./host-layout.js";
import type { LintHost } from "./lint-host.js";
import { fileName } from "./parse/definition-name.js";
import { parseJsonc } from "./parse/jsonc.js";
import { parseSettings } from "./parse/settings.js";
import { gitFacts, type RawFile, readTrees } from "./read-tree.js";
import type { HookEntry, LintFile, LintModel, NamedDefinition } from "./rule-types.js";
import { normalizePath } from "./tree-paths.js";

export type { RawFile } from "./read-tree.js";

interface Facts {
  tracked: Set<string> | null;
  trackedExecutable: Set<string> | null;
  /** Answers for paths the model holds no file for. */
  existsElsewhere(path: string): boolean;
}

/** Reads each host's tree under the root once (plus one `git ls-files`) and builds the model. */
export async function buildModel(root: string, hosts: readonly LintHost[]): Promise<LintModel> {
  const absolute = resolve(root);
  const layout = new HostLayout(hosts);
  const [raws, git] = await Promise.all([readTrees(absolute, layout), gitFacts(absolute)]);
  const cache = new Map<string, boolean>();
  return assembleModel(absolute, raws, layout, {
    ...git,
    // References point outside the config tree (specs/, src/); each distinct path is stat'ed once at most.
    existsElsewhere(path) {
      let known = cache.get(path);
      if (known === undefined) {
        known = present(join(absolute, path));
        cache.set(path, known);
      }
      return known;
    },
  });
}

export interface ModelFromTextsOptions {
  /** The hosts whose files these are (each host's own, from hosts/<name>/). */
  hosts: readonly LintHost[];
  /** Paths with the executable bit. */
  executable?: string[];
  /** Git-tracked paths; null (the default) means "not a git work tree". */
  tracked?: string[] | null;
  /** Tracked paths whose git mode is executable. */
  trackedExecutable?: string[];
  /** Other paths that exist on disk (outside the texts), e.g. `specs/state.json`. */
  existing?: string[];
  /** Absolute root; defaults to `/repo`. */
  root?: string;
}

/** The same model from in-memory texts (keys are root-relative paths), for rule tests. */
export function modelFromTexts(files: Record<string, string>, options: ModelFromTextsOptions): LintModel {
  const executable = new Set((options.executable ?? []).map(normalizePath));
  const raws = Object.entries(files).map(([path, text]) => {
    const normal = normalizePath(path);
    return { path: normal, text, executable: executable.has(normal) };
  });
  const existing = new Set((options.existing ?? []).map(normalizePath));
  const tracked = options.tracked ? new Set(options.tracked.map(normalizePath)) : null;
  const trackedExecutable = tracked ? new Set((options.trackedExecutable ?? []).map(normalizePath)) : null;
  return assembleModel(options.root ?? "/repo", raws, new HostLayout(options.hosts), {
    tracked,
    trackedExecutable,
    existsElsewhere: (path) => existing.has(path) || hasPrefix(existing, `${path}/`),
  });
}

function assembleModel(root: string, raws: RawFile[], layout: HostLayout, facts: Facts): LintModel {
  const files = raws
    .map((raw) => toLintFile(raw, layout))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const byPath = new Map(files.map((file) => [file.path, file]));
  const directories = new Set<string>();
  for (const file of files) {
    const parts = file.path.split("/");
    for (let i = 1; i < parts.length; i++) directories.add(parts.slice(0, i).join("/"));
  }
  const agents: NamedDefinition[] = [];
  const commands: NamedDefinition[] = [];
  const skills: NamedDefinition[] = [];
  const hooks: HookEntry[] = [];
  for (const file of files) {
    if (file.kind === "agent" || file.kind === "skill" || file.kind === "command") {
      const stem = fileName(file.path, file.kind);
      // Commands take their name from the path; agents and skills from frontmatter `name` when present.
      const declared = file.kind === "command" ? undefined : file.frontmatter?.data?.["name"];
      const name = typeof declared === "string" && declared.trim() !== "" ? declared.trim() : stem;
      const list = file.kind === "agent" ? agents : file.kind === "skill" ? skills : commands;
      list.push({ name, file, fileName: stem });
    } else if (file.kind === "host-config") {
      file.json = parseJsonc(file);
    } else if (file.kind === "settings") {
      const parsed = parseSettings(file, root);
      file.json = parsed.json;
      hooks.push(...parsed.hooks);
    }
  }
  const trees = layout.trees.filter((tree) => directories.has(tree));
  return {
    root,
    hosts: layout.hosts,
    hostOf: (path) => layout.hostOf(path),
    trees,
    files,
    byPath,
    agents,
    commands,
    skills,
    hooks,
    tracked: facts.tracked,
    trackedExecutable: facts.trackedExecutable,
    exists(path: string): boolean {
      const normal = normalizePath(path);
      if (normal === "") return true;
      return byPath.has(normal) || directories.has(normal) || facts.existsElsewhere(normal);
    },
  };
}

function toLintFile(raw: RawFile, layout: HostLayout): LintFile {
  const kind = layout.classify(raw.path);
  const lines = raw.text.split(/\r?\n/);
  const markdown = raw.path.endsWith(".md") && layout.splitTree(raw.path) !== null;
  const frontmatter = markdown ? parseFrontmatter(lines) : null;
  return {
    path: raw.path,
    kind,
    text: raw.text,
    lines,
    frontmatter,
    bodyStartLine: frontmatter ? frontmatter.endLine + 1 : 1,
    executable: raw.executable,
  };
}

function hasPrefix(paths: Set<string>, prefix: string): boolean {
  for (const path of paths) if (path.startsWith(prefix)) return true;
  return false;
}
