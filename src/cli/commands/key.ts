import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../config/index.js";
import { fingerprintOf, keyTrust, makeVouch, signingKey } from "../../evidence/index.js";
import { batonKeyDir, publicKeyFile, SIGNING_KEY_FILE, vouchFile } from "../../shared/baton-paths.js";
import { UsageError, writeFileAtomic } from "../../shared/index.js";
import { present } from "../../shared/present.js";

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
