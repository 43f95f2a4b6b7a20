import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Temp files live beside their target so that the final rename never crosses a file system. */
export function tempPathFor(target: string): string {
  return join(
    dirname(target),
    `.${basename(target)}.baton-${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
  );
}

export function writeFileDurable(path: string, content: string): void {
  const fd = openSync(path, "w", 0o644);
  try {
    const buffer = Buffer.from(content, "utf8");
    let written = 0;
    while (written < buffer.length) {
      written += writeSync(fd, buffer, written, buffer.length - written);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Async twin of writeFileDurable, so several files' fsyncs can run at once on the thread pool. */
export async function writeFileDurableAsync(path: string, content: string): Promise<void> {
  const handle = await open(path, "w", 0o644);
  try {
    await handle.writeFile(content, "utf8");
    await handle.sync();
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

/** Write via temp file + fsync + rename, so readers see the old or the new content, never a mix. */
export function writeFileAtomic(path: string, content: string): void {
  const temp = tempPathFor(path);
  try {
    writeFileDurable(temp, content);
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
