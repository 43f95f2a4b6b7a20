import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../config/index.js";
import { commitAcceptance } from "../../engine/index.js";
import {
  fingerprintOf,
  keyTrust,
  makeVouch,
  sealKeys,
  signingKey,
  unsealedClaims,
} from "../../evidence/index.js";
import { batonKeyDir, publicKeyFile, SIGNING_KEY_FILE, vouchFile } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import { UsageError, writeFileAtomic } from "../../shared/index.js";
import { present } from "../../shared/present.js";
import { runningSession, specsPaths, storePrefix } from "../../state/index.js";

export interface KeyReport {
  fingerprint: string;
  /** Where this account's private key lives (outside every repository, hidden from agents). */
  privateKey: string;
  /** The repository file that publishes its public half, and whether it is there. */
  publicKey: string;
  published: boolean;
  /** Whether the repository's history trusts it (a root, or vouched for). */
  trusted: boolean;
}

/** `baton key`: this account's evidence key and where the repository stands with it. */
export async function showKey(options: { repo: string }): Promise<KeyReport> {
  const config = await loadConfig(options.repo);
  const key = signingKey();
  const trust = await keyTrust(config.root);
  return {
    fingerprint: key.fingerprint,
    privateKey: join(batonKeyDir(), SIGNING_KEY_FILE),
    publicKey: publicKeyFile(key.fingerprint),
    published: present(join(config.root, publicKeyFile(key.fingerprint))),
    trusted: trust.trusted.has(key.fingerprint),
  };
}

export function formatKey(report: KeyReport): string {
  return [
    `Evidence key ${report.fingerprint} (${report.privateKey})`,
    `  ${report.publicKey}: ${report.published ? "in the repository" : "not yet in the repository (the next Baton commit with evidence adds it)"}`,
    `  trusted by this history: ${report.trusted ? "yes" : "no — someone holding a trusted key runs `baton key vouch " + report.fingerprint + "` and commits the vouch"}`,
  ].join("\n");
}

/**
 * `baton key vouch <fingerprint>`: signs another machine's committed public key with this one, so
 * `baton verify` trusts the evidence it signs. Writes `.baton/keys/<fingerprint>.vouch` for the person to commit.
 */
export async function vouchKey(options: { repo: string; fingerprint: string }): Promise<{ vouch: string }> {
  const config = await loadConfig(options.repo);
  const path = join(config.root, publicKeyFile(options.fingerprint));
  if (!present(path)) {
    throw new UsageError(
      `${publicKeyFile(options.fingerprint)} does not exist: the key must be committed first (its machine's first Baton commit adds it); pull, then vouch`,
    );
  }
  const pem = readFileSync(path, "utf8");
  if (fingerprintOf(pem) !== options.fingerprint) {
    throw new UsageError(
      `${publicKeyFile(options.fingerprint)} holds key ${fingerprintOf(pem)}, not ${options.fingerprint}`,
    );
  }
  const vouch = makeVouch(options.fingerprint, pem, signingKey());
  const out = vouchFile(options.fingerprint);
  writeFileAtomic(join(config.root, out), `${JSON.stringify(vouch, null, 2)}\n`);
  return { vouch: out };
}

/**
 * `baton key accept-commit <sha…>`: a person's word that commits carrying Baton's Session trailer without its
 * seal were made on purpose, as a sealed commit naming them. Refused inside a session and while one runs:
 * only a person outside every agent session can say this.
 */
export async function acceptCommits(options: {
  repo: string;
  commits: string[];
  insideSession: boolean;
}): Promise<{ commit: string; accepted: string[] }> {
  const config = await loadConfig(options.repo);
  const running = runningSession(specsPaths(config.specsDir).internalDir);
  if (options.insideSession || running)
    throw new UsageError(
      `only a person outside every agent session can accept a commit${running ? ` (session ${running.session} runs in this repository, process ${running.pid})` : ""}; run it in a terminal of your own after the session ends`,
    );
  const prefix = storePrefix(config.root, config.specsDir);
  const claims = await unsealedClaims(config.root, prefix, await sealKeys(config.root), "oldest");
  const accepted: string[] = [];
  for (const given of options.commits) {
    const sha = (
      await runGit(config.root, ["rev-parse", "--verify", "-q", `${given}^{commit}`])
    ).stdout.trim();
    const claim = claims.find((c) => c.commit === sha);
    if (!claim)
      throw new UsageError(
        `${given} is not a commit that carries Baton's Session trailer without its seal (reachable from HEAD since Baton began sealing); nothing to accept`,
      );
    accepted.push(sha);
  }
  const made = await commitAcceptance(config.root, accepted);
  if (!made.ok) throw new UsageError(`the acceptance commit failed: ${made.reason}`);
  return { commit: made.sha, accepted };
}
