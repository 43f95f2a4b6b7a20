import { mkdirSync, readFileSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { modeToKeep, writeFileNamed } from "../shared/atomic-write.js";
import { removeTemps } from "../shared/dead-temps.js";
import {
  fsyncDirectory,
  resolveWriteTarget,
  tempPathFor,
  writeFileAtomic,
  writeFileDurableAsync,
} from "../shared/index.js";
import { present } from "../shared/present.js";

/**
 * Several files change together (state.json, TODO.md, the archive, task folders). Each new file is
 * first written durably beside its target, then a journal listing every rename is written atomically,
 * then the renames run. A crash before the journal leaves the old files; a crash after it is rolled
 * forward by the next command that takes the lock. Either way the files never disagree.
 */
export interface FileWrite {
  path: string;
  content: string;
}

export interface FolderMove {
  from: string;
  to: string;
}

interface Journal {
  version: 1;
  created: string;
  writes: Array<{ path: string; temp: string }>;
  moves: FolderMove[];
  deletes?: string[];
}

export async function commitFiles(
  journalPath: string,
  writes: FileWrite[],
  moves: FolderMove[],
  deletes: readonly string[] = [],
): Promise<void> {
  const pendingDeletes = deletes.filter((path) => present(path));
  if (writes.length === 0 && moves.length === 0 && pendingDeletes.length === 0) return;
  // A symlinked file (state.json kept elsewhere) is written through its link, never replaced by a file.
  const targets = writes.map((w) => resolveWriteTarget(w.path));
  const staged = writes.map((_, i) => ({ path: targets[i]!, temp: tempPathFor(targets[i]!) }));
  for (const target of targets) mkdirSync(dirname(target), { recursive: true });
  // Temps land in task folders too, where no cleanup scans: a kill before the journal names them would
  // leave them for a later commit to stage. This list names them first (a cheap, non-durable write).
  const intent = `${journalPath}.temps`;
  writeFileNamed(intent, JSON.stringify(staged.map((s) => s.temp)));
  // A write that fails before the journal (a full disk) leaves the old files and no temp behind.
  const abandon = (error: unknown) => {
    for (const { temp } of staged) rmSync(temp, { force: true });
    rmSync(intent, { force: true });
    return error;
  };
  try {
    await Promise.all(
      writes.map((w, i) => writeFileDurableAsync(staged[i]!.temp, w.content, modeToKeep(targets[i]!))),
    );
  } catch (error) {
    throw abandon(error);
  }
  const single = staged.length === 1 && moves.length === 0 && pendingDeletes.length === 0;
  if (!single) {
    const journal: Journal = {
      version: 1,
      created: new Date().toISOString(),
      writes: staged,
      moves,
      deletes: pendingDeletes,
    };
    try {
      writeFileAtomic(journalPath, JSON.stringify(journal));
    } catch (error) {
      throw abandon(error);
    }
  }
  applyJournal(staged, moves, pendingDeletes);
  if (!single) unlinkSync(journalPath);
  rmSync(intent, { force: true });
}

function applyJournal(writes: Journal["writes"], moves: FolderMove[], deletes: readonly string[] = []): void {
  const dirs = new Set<string>();
  for (const move of moves) {
    if (present(move.from) && !present(move.to)) {
      mkdirSync(dirname(move.to), { recursive: true });
      renameSync(move.from, move.to);
      dirs.add(dirname(move.from));
      dirs.add(dirname(move.to));
    }
  }
  for (const write of writes) {
    if (present(write.temp)) {
      renameSync(write.temp, write.path);
      dirs.add(dirname(write.path));
    }
  }
  for (const path of deletes) {
    rmSync(path, { force: true });
    dirs.add(dirname(path));
  }
  for (const dir of dirs) fsyncDirectory(dir);
}

/** Rolls an interrupted commit forward and removes temp files of writes that never reached the journal. */
export function recoverInterruptedCommit(journalPath: string, tempDirs: string[]): boolean {
  let recovered = false;
  if (present(journalPath)) {
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as Journal;
    applyJournal(journal.writes, journal.moves, journal.deletes ?? []);
    unlinkSync(journalPath);
    recovered = true;
  }
  // Temps of a commit killed before its journal: whatever the journal did not rename away goes.
  const intent = `${journalPath}.temps`;
  if (present(intent)) {
    try {
      for (const temp of JSON.parse(readFileSync(intent, "utf8")) as string[]) rmSync(temp, { force: true });
    } catch {
      // a torn list: the directory scan below still clears specs/
    }
    rmSync(intent, { force: true });
  }
  for (const dir of tempDirs) removeTemps(dir, 0, false);
  // Baton's own folder (the journal's, checkpoints, seal, caches) is swept through: an atomic write killed
  // there, the journal's own among them, leaves its temp file where no commit or intent list names it.
  // Writers outside the store lock (session journals, caches) write there too: only a dead writer's go.
  removeTemps(dirname(journalPath), 2, true);
  return recovered;
}
