// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod.
import { join } from "node:path";
import { BATON_DIR, storeInternalPaths } from "../shared/baton-paths.js";
import { listCheckpoints, type Project, readMarker, taskFolders } from "./project.js";

/**
 * Binds a session-mode checkpoint (and its marker) to the Claude session that works on it, when
 * gate-in could not learn the session (no CLAUDE_CODE_SESSION_ID where it ran). Done under the store
 * lock, re-reading the checkpoint, so a concurrent gate-out never sees its checkpoint resurrected and
 * a bound checkpoint is never rebound. Returns the task number when it bound one.
 */
export async function bindCheckpoint(
  project: Project,
  batonSession: string,
  claudeSessionId: string,
): Promise<number | undefined> {
  const find = () => listCheckpoints(project).find((c) => c.checkpoint.sessionId === batonSession);
  const first = find();
  if (!first || first.checkpoint.claudeSessionId !== undefined) return undefined;
  // Loaded only here: binding happens once per delegation, never on the hot path.
  const [{ acquireLock }, { writeFileAtomic }, { resealFile }, { specsPaths }] = await Promise.all([
    import("../state/lock.js"),
    import("../shared/atomic-write.js"),
    import("../state/seal.js"),
    import("../state/paths.js"),
  ]);
  const release = await acquireLock(storeInternalPaths(join(project.specsDir, BATON_DIR)).lock, {
    timeoutMs: 2_000,
    command: "baton hook (bind claude session)",
  });
  try {
    const open = find();
    if (!open || open.checkpoint.claudeSessionId !== undefined) return undefined;
    const indent = open.text.includes("\n") ? 2 : undefined;
    writeFileAtomic(open.path, JSON.stringify({ ...JSON.parse(open.text), claudeSessionId }, null, indent));
    // Baton's own change to a sealed checkpoint: the seal follows, so no hook takes it for a foreign one.
    resealFile(specsPaths(project.specsDir), open.path);
    for (const folder of taskFolders(project, open.checkpoint.taskNumber)) {
      const marker = readMarker(folder);
      if (!marker || marker.marker.session_id !== batonSession || marker.marker.claude_session_id) continue;
      const markerIndent = marker.text.includes("\n") ? 2 : undefined;
      writeFileAtomic(
        marker.path,
        JSON.stringify({ ...marker.marker, claude_session_id: claudeSessionId }, null, markerIndent),
      );
      resealFile(specsPaths(project.specsDir), marker.path);
    }
    return open.checkpoint.taskNumber;
  } finally {
    release();
  }
}
