import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import * as z from "zod/mini";
import { MARKER_FILE, storeInternalPaths } from "../shared/baton-paths.js";
import { writeFileAtomic } from "../shared/index.js";
import type { FileWrite } from "./journal.js";
import type { SpecsPaths } from "./paths.js";

/**
 * The sealed store: Baton is the only writer of state.json, TODO.md and the archive's state.json. With
 * every write it keeps, in the same journaled commit, a copy of each of these files and its hash under
 * `specs/.baton/seal/`. A difference between a file and its seal is a change made some other way — an
 * interpreter, a variable path, a symlink, `git checkout`, an editor — found by the next hook call or
 * Baton write, and either restored from the copy (inside a Claude Code session) or adopted on purpose.
 */
export const SealManifest = z.object({
  version: z.literal(1),
  files: z.record(z.string(), z.object({ hash: z.string(), size: z.number() })),
});
export type SealManifest = z.infer<typeof SealManifest>;

export interface ForeignChange {
  /** Relative to specs/, `/`-separated: `state.json`, `TODO.md`, `archive/state.json`. */
  file: string;
  path: string;
  kind: "changed" | "deleted";
  /** A checkpoint or marker: Baton's own, only ever restored, never adopted. */
  control: boolean;
}

export function sealedFiles(paths: SpecsPaths): string[] {
  return [paths.state, paths.todo, paths.archiveState];
}

const sealDir = (paths: SpecsPaths) => storeInternalPaths(paths.internalDir).seal;
const manifestPath = (paths: SpecsPaths) => join(sealDir(paths), "manifest.json");
const keyOf = (paths: SpecsPaths, path: string) => relative(paths.dir, path).split(sep).join("/");
const copyPath = (paths: SpecsPaths, key: string) =>
  join(sealDir(paths), "copies", key.replaceAll("/", "__"));

function hashOf(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

function readBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

export function readSeal(paths: SpecsPaths): SealManifest | null {
  const bytes = readBytes(manifestPath(paths));
  if (bytes === null) return null;
  try {
    const parsed = SealManifest.safeParse(JSON.parse(bytes.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Sealed files that differ from Baton's last write of them (none before Baton's first write). */
export function findForeignChanges(paths: SpecsPaths): ForeignChange[] {
  const seal = readSeal(paths);
  if (!seal) return [];
  const changes: ForeignChange[] = [];
  for (const [key, sealed] of Object.entries(seal.files)) {
    const path = join(paths.dir, key);
    const bytes = readBytes(path);
    const control = isControlFile(paths, path);
    if (bytes === null) changes.push({ file: key, path, kind: "deleted", control });
    else if (bytes.length !== sealed.size || hashOf(bytes) !== sealed.hash)
      changes.push({ file: key, path, kind: "changed", control });
  }
  return changes;
}

/**
 * Open checkpoints and the postflight markers in task folders are Baton's too: deleting or editing one
 * to escape its gate is undone like any other change.
 */
function isControlFile(paths: SpecsPaths, path: string): boolean {
  const checkpoint = relative(storeInternalPaths(paths.internalDir).checkpoints, path);
  if (!checkpoint.startsWith("..") && !checkpoint.includes(sep) && checkpoint.endsWith(".json")) return true;
  const inSpecs = relative(paths.dir, path).split(sep);
  return inSpecs.length === 2 && /^\d+_/.test(inSpecs[0]!) && inSpecs[1] === MARKER_FILE;
}

/**
 * The seal writes that go into the same journaled commit as a store write: a copy of each sealed file
 * as it will be, and the manifest. The store files a write does not touch are sealed as they are now
 * (the first Baton write seals them all; an adopted edit is sealed this way too); checkpoints and markers
 * are sealed as they are written and unsealed as they are closed.
 */
/** Where the seal keeps its copy of `path`. */
export function sealCopyPath(paths: SpecsPaths, path: string): string {
  return copyPath(paths, keyOf(paths, path));
}

export function sealWrites(
  paths: SpecsPaths,
  writes: readonly FileWrite[],
  deletes: readonly string[] = [],
): FileWrite[] {
  const seal = readSeal(paths) ?? { version: 1 as const, files: {} };
  const out: FileWrite[] = [];
  let changed = false;
  const seen = (path: string, content: Buffer) => {
    const key = keyOf(paths, path);
    const hash = hashOf(content);
    if (seal.files[key]?.hash === hash && seal.files[key]?.size === content.length) return;
    seal.files[key] = { hash, size: content.length };
    out.push({ path: copyPath(paths, key), content: content.toString("utf8") });
    changed = true;
  };
  for (const path of sealedFiles(paths)) {
    const written = writes.find((w) => w.path === path);
    const content = written ? Buffer.from(written.content, "utf8") : readBytes(path);
    if (content !== null) seen(path, content);
  }
  for (const write of writes)
    if (isControlFile(paths, write.path)) seen(write.path, Buffer.from(write.content, "utf8"));
  for (const path of deletes) {
    const key = keyOf(paths, path);
    if (seal.files[key] !== undefined) {
      delete seal.files[key];
      changed = true;
    }
  }
  if (changed) out.push({ path: manifestPath(paths), content: `${JSON.stringify(seal, null, 2)}\n` });
  return out;
}

/** Seals one file as Baton just wrote it outside a store write (a hook binding a checkpoint to its session). */
export function resealFile(paths: SpecsPaths, path: string): void {
  const seal = readSeal(paths);
  const key = keyOf(paths, path);
  const content = readBytes(path);
  if (!seal?.files[key] || content === null) return;
  seal.files[key] = { hash: hashOf(content), size: content.length };
  writeFileAtomic(copyPath(paths, key), content.toString("utf8"));
  writeFileAtomic(manifestPath(paths), `${JSON.stringify(seal, null, 2)}\n`);
}

/**
 * Baton's last write of a sealed file, as the seal keeps it: what a Baton commit carries, whatever the
 * file holds now. Null when there is no seal of it (or its copy does not match its hash).
 */
export function sealedContent(paths: SpecsPaths, path: string): string | null {
  const key = keyOf(paths, path);
  const sealed = readSeal(paths)?.files[key];
  const copy = sealed ? readBytes(copyPath(paths, key)) : null;
  if (!sealed || copy === null || copy.length !== sealed.size || hashOf(copy) !== sealed.hash) return null;
  return copy.toString("utf8");
}

/** Puts Baton's last write of each changed file back (through a symlink, atomically). */
export function restoreSealed(paths: SpecsPaths, changes: readonly ForeignChange[]): ForeignChange[] {
  const restored: ForeignChange[] = [];
  for (const change of changes) {
    const copy = readBytes(copyPath(paths, change.file));
    if (copy === null) continue;
    mkdirSync(dirname(change.path), { recursive: true });
    writeFileAtomic(change.path, copy.toString("utf8"));
    restored.push(change);
  }
  return restored;
}

export function describeForeignChanges(changes: readonly ForeignChange[]): string {
  return changes.map((c) => `specs/${c.file}${c.kind === "deleted" ? " (deleted)" : ""}`).join(", ");
}

/** A person adopting edits keeps the store files; a checkpoint or marker is never adopted, only restored or closed. */
export function adoptable(change: ForeignChange): boolean {
  return !change.control;
}
