import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  type WriteFileOptions,
  writeFileSync,
  writeSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { tempFileName } from "./baton-paths.js";
import { IoError, withPath } from "./errors.js";

/** Temp files live beside their target so that the final rename never crosses a file system. */
export function tempPathFor(target: string): string {
  return join(dirname(target), tempFileName(basename(target), process.pid, randomBytes(4).toString("hex")));
}

/**
 * The permission bits a rewrite of `path` keeps: the file's own, so a write under a strict umask (077)
 * does not turn a shared 0644 state.json into 0600; undefined for a file that does not exist yet.
 */
export function modeToKeep(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

export function writeFileDurable(path: string, content: string, mode?: number): void {
  const fd = openSync(path, "w", 0o644);
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    const buffer = Buffer.from(content, "utf8");
    let written = 0;
    while (written < buffer.length) {
      written += writeSync(fd, buffer, written, buffer.length - written);
    }
    fsyncSync(fd);
  } catch (error) {
    throw withPath(error, path);
  } finally {
    closeSync(fd);
  }
}

/** Async twin of writeFileDurable, so several files' fsyncs can run at once on the thread pool. */
export async function writeFileDurableAsync(path: string, content: string, mode?: number): Promise<void> {
  const handle = await open(path, "w", 0o644);
  try {
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(content, "utf8");
    await handle.sync();
  } catch (error) {
    throw withPath(error, path);
  } finally {
    await handle.close();
  }
}

export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Where a write to `path` must land: the file itself, or, for a symbolic link (a state.json kept
 * elsewhere and linked into specs/), the file the link points to, so that the rename of an atomic
 * write replaces the target and the link survives. A dangling link is refused: writing a regular
 * file in its place would silently cut the link.
 */
export function resolveWriteTarget(path: string): string {
  try {
    if (!lstatSync(path).isSymbolicLink()) return path;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return path;
    throw error;
  }
  try {
    return realpathSync(path);
  } catch (error) {
    throw new IoError(`${path} is a symbolic link to ${readlinkSync(path)}, which does not exist`, {
      cause: error,
      hint: "Restore the link's target, or replace the link with the file itself; nothing was written.",
    });
  }
}

/** Write via temp file + fsync + rename, so readers see the old or the new content, never a mix. */
export function writeFileAtomic(target: string, content: string): void {
  const path = resolveWriteTarget(target);
  const temp = tempPathFor(path);
  try {
    writeFileDurable(temp, content, modeToKeep(path));
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // the temp file may never have been created
    }
    throw error;
  }
  fsyncDirectory(dirname(path));
}

/** `writeFileSync` whose failure names the file (a full disk fails the write, which alone names none). */
export function writeFileNamed(
  path: string,
  data: string | NodeJS.ArrayBufferView,
  options?: WriteFileOptions,
): void {
  try {
    writeFileSync(path, data, options);
  } catch (error) {
    throw withPath(error, path);
  }
}

/** `appendFileSync` whose failure names the file. */
export function appendFileNamed(path: string, data: string, options?: WriteFileOptions): void {
  try {
    appendFileSync(path, data, options);
  } catch (error) {
    throw withPath(error, path);
  }
}
