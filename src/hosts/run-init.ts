import { applyInitPlan, type InitResult } from "../init/index.js";
import { type InstallOptions, planInstall } from "./install-hosts.js";
import { HOSTS } from "./registry.js";
import { planUninstall } from "./uninstall-hosts.js";

export interface InitOptions extends InstallOptions {
  uninstall?: boolean | undefined;
  dryRun?: boolean | undefined;
}

/** `baton init`: plans every host's part, then (unless a dry run or a conflict) writes. Returns what it did or would do. */
export async function runInit(options: InitOptions): Promise<InitResult> {
  const plan = options.uninstall
    ? await planUninstall(options.root, HOSTS)
    : await planInstall(options, HOSTS);
  return applyInitPlan(
    plan,
    options.dryRun ?? false,
    HOSTS.flatMap((h) => h.installer.dirs),
  );
}
