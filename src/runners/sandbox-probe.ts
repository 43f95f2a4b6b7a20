import { spawnSync } from "node:child_process";

/** Where the sandbox comes from, and why it cannot run when it cannot. */
export type SandboxProbe = { ok: true; binary: string } | { ok: false; reason: string; fix: string };

let probed: SandboxProbe | undefined;

/**
 * Whether bubblewrap can start a sandbox here: installed, and allowed to make the namespaces it needs
 * (unprivileged user namespaces, when not root). Asked once per process, with the options a launch uses
 * (an older bubblewrap may lack one), and judged by bubblewrap's own status: the sandbox is there once it
 * reports the child it started. The probe command's exit code is not the sandbox's: a preloaded library
 * (libfaketime under `LD_PRELOAD`) may make even `true` fail, and a launch gives it what it needs.
 */
export function probeSandbox(binary = process.env["BATON_BWRAP"] ?? "bwrap"): SandboxProbe {
  if (probed) return probed;
  const options = ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--unshare-pid", "--die-with-parent"];
  const run = spawnSync(binary, [...options, "--proc", "/proc", "--json-status-fd", "3", "--", "true"], {
    stdio: ["ignore", "ignore", "pipe", "pipe"],
    timeout: 10_000,
  });
  const status = run.output?.[3]?.toString() ?? "";
  const said = run.output?.[2]?.toString().trim() ?? "";
  if (run.error === undefined && /"child-pid"\s*:/.test(status)) probed = { ok: true, binary };
  else probed = failedProbe(binary, run.error as NodeJS.ErrnoException | undefined, said);
  return probed;
}

function failedProbe(binary: string, error: NodeJS.ErrnoException | undefined, said: string): SandboxProbe {
  if (error?.code === "ENOENT")
    return {
      ok: false,
      reason: `bubblewrap (${binary}) is not installed`,
      fix: "install it (Debian/Ubuntu: apt-get install bubblewrap), or run unsandboxed on purpose with --sandbox off",
    };
  if (said.includes("Unknown option"))
    return {
      ok: false,
      reason: `this bubblewrap (${binary}) is too old: ${said}`,
      fix: "install a newer bubblewrap (one that knows --json-status-fd), or run unsandboxed on purpose with --sandbox off",
    };
  return {
    ok: false,
    reason: `bubblewrap cannot make a sandbox here: ${said || error?.message || "it started nothing"}`,
    fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or run as root), or run unsandboxed on purpose with --sandbox off",
  };
}
