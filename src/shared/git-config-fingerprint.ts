import { createHash } from "node:crypto";
import { runGit } from "./git.js";

/**
 * Keys that never make git run a program, whatever their value: a person may change them while a run goes
 * on (a branch's upstream, their e-mail) without its verdict being refused. A key missing here refuses an
 * honest run at worst; it never lets a program through.
 */
const INERT_KEY =
  /^(user\.(name|email)|author\.|committer\.|branch\..+\.(remote|merge|rebase|description)|remote\..+\.(url|pushurl|fetch|push|tagopt|prune)|init\.defaultbranch|gc\.|maintenance\.|color\.|column\.|advice\.|i18n\.|log\.|format\.|pull\.rebase|push\.default|fetch\.prune|rerere\.enabled|core\.(repositoryformatversion|bare|logallrefupdates|filemode|ignorecase|precomposeunicode|symlinks|autocrlf|safecrlf|eol|quotepath)|extensions\.)/i;

/**
 * Git's effective configuration (every scope, includes followed) as `scope origin key` → a digest of its
 * values, for the keys that can make git run something (filters, diff and merge drivers, fsmonitor, hooks,
 * editors, pagers, includes). Reading it runs nothing. Null when git cannot read it.
 */
export async function gitConfigFingerprint(root: string): Promise<Record<string, string> | null> {
  const listed = await runGit(root, ["config", "--list", "--show-origin", "--show-scope", "-z"], {
    env: { GIT_OPTIONAL_LOCKS: "0" },
  });
  if (!listed.ok) return null;
  // -z: `<scope>\0<origin>\0<key>\n<value>\0` per entry.
  const fields = listed.stdout.split("\0").filter((f) => f !== "");
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, entry] = [fields[i]!, fields[i + 1]!, fields[i + 2]!];
    const newline = entry.indexOf("\n");
    const key = newline === -1 ? entry : entry.slice(0, newline);
    if (INERT_KEY.test(key)) continue;
    const value = newline === -1 ? "" : entry.slice(newline + 1);
    const name = `${scope} ${origin} ${key}`;
    out[name] = [...(out[name] ?? []), value];
  }
  return Object.fromEntries(
    Object.entries(out).map(([name, list]) => [
      name,
      createHash("sha256").update(list.join("\0")).digest("hex").slice(0, 16),
    ]),
  );
}

/** The keys whose presence or values differ between two fingerprints, sorted. */
export function changedKeys(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).sort();
}
