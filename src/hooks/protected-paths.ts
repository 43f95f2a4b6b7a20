// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod.
import { homedir } from "node:os";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { BATON_DIR, batonKeyDir, GUARDED_SETTINGS, SIGNING_KEY_FILE } from "../shared/baton-paths.js";
import { hostHookScripts } from "../shared/host-hook-scripts.js";
import { specsPaths } from "../state/paths.js";
import { LOOP_GUARD, MARKER, type Project } from "./project.js";
import { fileIdentity, hasOtherNames, resolvedPath } from "./resolved-path.js";

/**
 * The files only Baton may write. Each kind carries the reason the model reads when a write is
 * denied, which names the command to use instead: a bare "denied" makes a model retry by other means.
 */
export type ProtectedKind =
  | "state"
  | "todo"
  | "archive"
  | "errors"
  | "marker"
  | "internal"
  | "hook-data"
  | "settings"
  | "hook-script"
  | "git"
  | "key";

export interface ProtectedFile {
  kind: ProtectedKind;
  /** Relative to the project root, for messages. */
  shown: string;
}

function inside(parent: string, child: string): string | null {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel)) ? rel : null;
}

/**
 * Whether a write to `absolute` would land on a file only Baton (or the person) may write: decided on the
 * file the OS resolves (links on the way and at the end, `/proc/<pid>/root`), and on a hard link's other names,
 * not on the path as typed. Shown as typed, with where it really lands when that differs.
 */
export function classifyPath(absolute: string, project: Project): ProtectedFile | null {
  // The hosts' hook settings are read once a decision, and only for a path no fixed rule decides.
  let scripts: readonly string[] | undefined;
  const hookScripts = () => {
    scripts ??= hostHookScripts(project.root);
    return scripts;
  };
  const typed = classifyResolved(absolute, project, hookScripts);
  if (typed) return typed;
  const real = resolvedPath(absolute);
  const realProject = resolvedProject(project);
  const landed = real === absolute ? null : classifyResolved(real, realProject, hookScripts);
  const hit = landed ?? (hasOtherNames(real) ? sameFileAs(real, realProject, hookScripts) : null);
  if (!hit) return null;
  const typedShown = inside(project.root, absolute) ?? absolute;
  return { kind: hit.kind, shown: `${typedShown} (which is ${hit.shown})` };
}

const realProjects = new Map<string, Project>();
function resolvedProject(project: Project): Project {
  const key = `${project.root}\0${project.specsDir}`;
  let real = realProjects.get(key);
  if (!real) {
    real = { root: resolvedPath(project.root), specsDir: resolvedPath(project.specsDir) };
    realProjects.set(key, real);
  }
  return real;
}

/** The protected file `real` is another name of (a hard link), if any. */
function sameFileAs(real: string, project: Project, hookScripts: HookScripts): ProtectedFile | null {
  const identity = fileIdentity(real);
  if (identity === null) return null;
  const paths = specsPaths(project.specsDir);
  const store = [paths.state, paths.todo, paths.errors, paths.archiveState];
  const candidates = [
    ...store,
    ...[...GUARDED_SETTINGS, ...hookScripts()].map((p) => join(project.root, p)),
    join(project.root, ".git", "config"),
    join(batonKeyDir(), SIGNING_KEY_FILE),
  ];
  const found = candidates.find((path) => fileIdentity(path) === identity);
  return found ? classifyResolved(found, project, hookScripts) : null;
}

/** The scripts the hosts' hooks run, repository-relative (`hostHookScripts`), read when first asked for. */
type HookScripts = () => readonly string[];

function classifyResolved(
  absolute: string,
  project: Project,
  hookScripts: HookScripts,
): ProtectedFile | null {
  const shown = inside(project.root, absolute) ?? absolute;
  const rel = inside(project.root, absolute)?.split(sep).join("/");
  if (
    rel !== undefined &&
    (GUARDED_SETTINGS as readonly string[]).some((p) => rel === p || rel.startsWith(`${p}/`))
  )
    return { kind: "settings", shown };
  if (rel !== undefined && hookScripts().some((p) => rel === p || rel.startsWith(`${p}/`)))
    return { kind: "hook-script", shown };
  if (rel !== undefined && (rel === ".git" || rel.startsWith(".git/"))) return { kind: "git", shown };
  if (inside(batonKeyDir(), absolute) !== null) return { kind: "key", shown };
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
  // `/proc/<pid>/cwd` and `/root` name the writing process's folders, not this hook's: the tool's cwd and `/`.
  const proc = /^\/proc\/(?:self|thread-self|\d+)\/(cwd|root)(?=\/|$)/.exec(path);
  if (proc) path = (proc[1] === "cwd" ? cwd : "/") + path.slice(proc[0].length);
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
    case "settings":
      return `Refused: ${what}. Baton's configuration and the hosts' settings decide whether Baton's hooks and the sandbox run; no agent writes them, by any path. Ask the person to change them outside the session.`;
    case "hook-script":
      return `Refused: ${what}. A host's settings run it as a hook, outside any sandbox and with the person's rights, on every tool call; no agent writes it, by any path. Ask the person to change it outside the session.`;
    case "git":
      return `Refused: ${what}. .git/ is git's own (its config and hooks decide what runs when Baton commits); no tool writes it. Baton commits the work at gate-out.`;
    case "key":
      return `Refused: ${what}. Baton's signing key is not for agents: no tool reads, copies or changes it.`;
  }
}
