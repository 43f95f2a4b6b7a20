import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * What an agent Baton starts may not touch: the paths it sees read-only (git history, the task store,
 * Baton's own files), the ones it does not see at all (Baton's signing key), and, by construction, no
 * process of its outlives it (its own PID namespace, which the kernel empties when its first process ends).
 */
export interface SandboxPolicy {
  /** Bound read-only over themselves; a path that does not exist is skipped. */
  readOnly: readonly string[];
  /** Writable again although inside a read-only path (a phase's worktree lives in git's own folder). */
  writable?: readonly string[];
  /** Replaced by an empty folder. */
  hidden: readonly string[];
  /** The repository-relative paths it protects, for a sandbox made on another machine (a queue worker). */
  protect?: readonly string[];
}

/** Where the sandbox comes from, and why it cannot run when it cannot. */
export type SandboxProbe = { ok: true; binary: string } | { ok: false; reason: string; fix: string };

let probed: SandboxProbe | undefined;

/**
 * Whether bubblewrap can start a sandbox here: installed, and allowed to make the namespaces it needs
 * (unprivileged user namespaces, when not root). Asked once per process.
 */
export function probeSandbox(binary = process.env["BATON_BWRAP"] ?? "bwrap"): SandboxProbe {
  if (probed) return probed;
  try {
    execFileSync(binary, ["--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--", "true"], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 10_000,
    });
    probed = { ok: true, binary };
  } catch (error) {
    const err = error as NodeJS.ErrnoException & { stderr?: Buffer };
    const said = err.stderr?.toString().trim();
    probed =
      err.code === "ENOENT"
        ? {
            ok: false,
            reason: `bubblewrap (${binary}) is not installed`,
            fix: "install it (Debian/Ubuntu: apt-get install bubblewrap), or run unsandboxed on purpose with --sandbox off",
          }
        : {
            ok: false,
            reason: `bubblewrap cannot make a sandbox here: ${said || err.message}`,
            fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or run as root), or run unsandboxed on purpose with --sandbox off",
          };
  }
  return probed;
}

/**
 * The command line that runs `command` inside the sandbox: the whole file system as it is, then the
 * read-only and hidden paths over it, a PID namespace of its own with a fresh /proc, and the sandbox
 * ending with Baton (a killed Baton takes its agent with it).
 */
export function sandboxed(
  policy: SandboxPolicy,
  command: string,
  args: readonly string[],
  binary = process.env["BATON_BWRAP"] ?? "bwrap",
): { command: string; args: string[] } {
  const wrap = ["--dev-bind", "/", "/"];
  const readOnly = [...new Set(policy.readOnly)].filter((path) => existsSync(path));
  const writable = [...new Set(policy.writable ?? [])].filter((path) => existsSync(path));
  const inside = (path: string, dir: string) => path.startsWith(`${dir}/`);
  // Read-only first; a writable folder inside one is bound again; what is protected inside that, once more.
  for (const path of readOnly) wrap.push("--ro-bind", path, path);
  for (const path of writable) wrap.push("--bind", path, path);
  for (const path of readOnly)
    if (writable.some((dir) => inside(path, dir))) wrap.push("--ro-bind", path, path);
  for (const path of new Set(policy.hidden)) if (existsSync(path)) wrap.push("--tmpfs", path);
  wrap.push("--unshare-pid", "--die-with-parent", "--proc", "/proc", "--", command, ...args);
  return { command: binary, args: wrap };
}
