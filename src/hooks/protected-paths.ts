import { homedir } from "node:os";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { BATON_DIR } from "../shared/baton-paths.js";
import { LOOP_GUARD, MARKER, type Project } from "./project.js";

/**
 * The files only Baton may write. Each kind carries the reason the model reads when a write is
 * denied, which names the command to use instead: a bare "denied" makes a model retry by other means.
 */
export type ProtectedKind = "state" | "todo" | "archive" | "errors" | "marker" | "internal" | "hook-data";

export interface ProtectedFile {
  kind: ProtectedKind;
  /** Relative to the project root, for messages. */
  shown: string;
}

function inside(parent: string, child: string): string | null {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel)) ? rel : null;
}

export function classifyPath(absolute: string, project: Project): ProtectedFile | null {
  const shown = inside(project.root, absolute) ?? absolute;
  const name = basename(absolute);
  if (name === MARKER || name === LOOP_GUARD) return { kind: "marker", shown };
  const inSpecs = inside(project.specsDir, absolute);
  if (inSpecs !== null) {
    const rel = inSpecs.split(sep).join("/");
    if (rel === "state.json") return { kind: "state", shown };
    if (rel === "TODO.md") return { kind: "todo", shown };
    if (rel === "archive/state.json") return { kind: "archive", shown };
    if (rel === "errors.json") return { kind: "errors", shown };
    if (rel === BATON_DIR || rel.startsWith(`${BATON_DIR}/`)) return { kind: "internal", shown };
  }
  const inRoot = inside(project.root, absolute);
  if (inRoot !== null && (inRoot === BATON_DIR || inRoot.startsWith(`${BATON_DIR}${sep}`))) {
    return { kind: "hook-data", shown };
  }
  return null;
}

/**
 * A path as written in a tool input or a shell word, made absolute: `$CLAUDE_PROJECT_DIR` is the
 * root, `~` the home folder, and another leading variable is taken as the root (best effort).
 */
export function absolutePath(written: string, cwd: string, project: Project): string {
  let path = written;
  const variable = /^\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)/.exec(path);
  if (variable) path = project.root + path.slice(variable[0].length);
  else if (path === "~" || path.startsWith("~/")) path = homedir() + path.slice(1);
  return resolve(cwd, path);
}

// No command named here may move a task past its gate: an operation's result is recorded only by its gate-out.
const STORE_COMMANDS =
  "an operation's result is recorded by its `baton gate-out` once the delegated agent has written it, and new tasks come from `baton task add …`";

export function denyReason(file: ProtectedFile, action: string): string {
  const what = `${action} ${file.shown}`;
  switch (file.kind) {
    case "state":
    case "todo":
      return `Refused: ${what}. ${file.shown} is written only by Baton, which keeps state.json and TODO.md in step under a lock; ${STORE_COMMANDS}. Read it freely (cat, jq, \`baton task show N\`).`;
    case "archive":
      return `Refused: ${what}. The archive is written only by Baton: use \`baton archive\`, \`baton task abandon N\` or \`baton task recover N\`.`;
    case "errors":
      return `Refused: ${what}. errors.json is appended by Baton's gates; read it with \`baton errors\`.`;
    case "marker":
      return `Refused: ${what}. It is Baton's delegation marker: \`baton gate-in\` writes it and \`baton gate-out <operation> N --session <id>\` removes it once the agent's result verifies. Do not create, edit or delete it.`;
    case "internal":
      return `Refused: ${what}. specs/${BATON_DIR}/ holds Baton's checkpoints, lock and journal; only Baton writes them. Close a delegation with \`baton gate-out <operation> N --session <id>\`; repair with \`baton recover\` or \`baton doctor --fix\`.`;
    case "hook-data":
      return `Refused: ${what}. ${BATON_DIR}/ holds Baton's hook log and counters; only Baton writes them.`;
  }
}
