// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod.
import { isAbsolute, join, relative } from "node:path";
import { BATON_DIR } from "../shared/baton-paths.js";
import { runGit } from "../shared/git.js";
import { appendDelegationEvents, hashFile, readDelegation } from "../state/delegation-log.js";
import type { ToolHookInput } from "./hook-input-schema.js";
import { listCheckpoints, type Project } from "./project.js";

const internalDir = (project: Project) => join(project.specsDir, BATON_DIR);

/**
 * While an in-session implement is open, who changed each file of the work tree outside the store: after
 * every tool call, the files git sees changed whose content is not what the log last recorded are recorded
 * with this call's actor (the main thread, or an agent). GATE OUT then refuses work the main thread did,
 * whatever tool did it (a Bash `sed`, an interpreter), where the task folder's provenance alone let it pass.
 */
export async function observeWorkTree(input: ToolHookInput, project: Project): Promise<void> {
  const open = listCheckpoints(project).filter(
    (c) => c.checkpoint.mode === "session" && c.checkpoint.operation === "implement",
  );
  if (open.length === 0) return;
  const listed = await runGit(
    project.root,
    ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"],
    {
      env: { GIT_OPTIONAL_LOCKS: "0" },
    },
  );
  if (!listed.ok) return;
  const specs = relative(project.root, project.specsDir);
  const outsideStore = (path: string) => {
    const rel = relative(specs, path);
    return specs === "" || rel.startsWith("..") || isAbsolute(rel);
  };
  const paths = listed.stdout
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .filter(outsideStore);
  const actor = input.agent_id ? `agent:${input.agent_id}` : "main";
  const at = new Date().toISOString();
  for (const { checkpoint } of open) {
    const view = readDelegation(internalDir(project), checkpoint.sessionId);
    const events = paths.flatMap((path) => {
      const hash = hashFile(join(project.root, path));
      if (view.files.get(path)?.hash === hash) return [];
      return [{ type: "file" as const, at, path, hash, size: 0, mtimeMs: 0, actor, tool: input.tool_name }];
    });
    appendDelegationEvents(internalDir(project), checkpoint.sessionId, events);
  }
}
