import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { runGit } from "../../shared/git.js";
import { listErrors } from "../../state/index.js";
import { isControlFile } from "../run/index.js";
import type { GateInStep } from "./gate-in-step.js";

/** At most this many of the folder's files are named in the refusal. */
const NAMED_FILES = 5;

/** Files under `dir`, relative to it, sorted; control files and temp files of Baton's writes left out. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!isControlFile(entry.name)) found.push(relative(dir, path));
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * Of `files` (relative to `folder`), those git does not hold as committed: untracked, ignored or changed.
 * A file committed as it is (the original system writes a task's spec into its folder when it creates the
 * task) is history, never the agent's work, and makes no folder foreign. Outside git, all of them.
 */
async function notCommitted(root: string, folder: string, files: string[]): Promise<string[]> {
  if (files.length === 0) return files;
  const status = await runGit(root, [
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--ignored=matching",
    "--",
    `:(literal)${relative(root, folder) || "."}`,
  ]);
  if (!status.ok) return files;
  const open = new Set(
    status.stdout
      .split("\0")
      .filter((entry) => entry.length > 3)
      .map((entry) => relative(folder, join(root, entry.slice(3)))),
  );
  return files.filter((file) => open.has(file));
}

/**
 * A task nobody has worked on yet (not started, no session, no linked artifact) whose folder already holds
 * files git does not hold as committed: the folder is someone else's (another tool's, a person's notes, a name that happens to match), and
 * adopting it would hand its files to the agent and put them under this task. The run does not start;
 * nothing is written. A task a person moved on (a plan written by hand, the status set to planned) owns its
 * folder; and whatever a folder holds, a commit only ever carries what the agent changed.
 */
export const refuseForeignFolder: GateInStep = async ({ run }) => {
  const { task } = run;
  const worked =
    task.status !== "not_started" ||
    (typeof task.session_id === "string" && task.session_id !== "") ||
    (Array.isArray(task.artifacts) && task.artifacts.length > 0);
  if (worked) return { ok: true };
  const files = await notCommitted(run.config.root, run.folder, filesUnder(run.folder));
  if (files.length === 0) return { ok: true };
  if (rolledBackBefore(run)) return { ok: true };
  const folder = relative(run.config.root, run.folder) || ".";
  const named = files.slice(0, NAMED_FILES).join(", ");
  const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more` : "";
  return {
    ok: false,
    message:
      `${folder}/ already exists and holds files Baton did not write for task ${run.taskNumber} (${named}${more}); ` +
      `move them out of ${folder}/ (or rename the folder), then run again: Baton never adopts a folder it did not make`,
  };
};

/**
 * Baton ran this task before and recovery rolled that run back (its process died): the task is not_started
 * again and its session restored, but the folder Baton made for it keeps what that run's agent wrote. That
 * GATE IN let the run start, so the folder held nothing foreign then; errors.json, which only Baton writes
 * while agents run (the sandbox keeps the store read-only), says so.
 */
function rolledBackBefore(run: Parameters<GateInStep>[0]["run"]): boolean {
  try {
    const { errors } = listErrors(run.ctx, { task: run.taskNumber, type: "delegation_interrupted" });
    return errors.length > 0;
  } catch {
    // An unreadable errors.json proves nothing: the folder is refused as anyone's would be.
    return false;
  }
}
