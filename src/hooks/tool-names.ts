/**
 * The tools a hook's input names, in the hook protocol's words (Claude Code's; the other hosts' adapters speak
 * them too: opencode's plugin maps its `write`, `edit` and `multiedit` here, Codex sends `Bash`).
 */

/** Tools that write the one file their input names (`file_path`, or `notebook_path`). */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

/** The sub-agent tool is `Agent`; `Task` is its alias (contract 6.1). */
export const DELEGATION_TOOLS: ReadonlySet<string> = new Set(["Agent", "Task"]);
