import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { isControlFile } from "../delegate/postflight-marker.js";
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
 * A task nobody has worked on yet (not started, no session, no linked artifact) whose folder already holds
 * files: the folder is someone else's (another tool's, a person's notes, a name that happens to match), and
 * adopting it would hand its files to the agent and put them under this task. The run does not start;
 * nothing is written. A task a person moved on (a plan written by hand, the status set to planned) owns its
 * folder; and whatever a folder holds, a commit only ever carries what the agent changed.
 */
export const refuseForeignFolder: GateInStep = ({ run }) => {
  const { task } = run;
  const worked =
    task.status !== "not_started" ||
    (typeof task.session_id === "string" && task.session_id !== "") ||
    (Array.isArray(task.artifacts) && task.artifacts.length > 0);
  if (worked) return { ok: true };
  const files = filesUnder(run.folder);
  if (files.length === 0) return { ok: true };
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
