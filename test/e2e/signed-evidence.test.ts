import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson, fingerprintOf } from "../../src/evidence/index.js";
import { GOOD_RESEARCH, git, ok, okJson, repo, runBaton, tempDir } from "./helpers.js";

/**
 * Evidence is signed with a key outside the repository; `baton verify` trusts the keys committed at
 * adoption and those they vouch for, and holds each completion's commit to its signed evidence. Each
 * forgery here is one a hostile agent (or person) without the key tried.
 */
const FOLDER = "specs/1_study_the_lexer";
const REPORT = `${FOLDER}/reports/research-001.md`;

const keyDir = () => tempDir("baton-keys-");

function researchedRepo(keys: string): string {
  const dir = repo();
  ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
  ok(dir, ["task", "add", "Study the parser", "-l", "general"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "tasks"]);
  writeFileSync(join(dir, ".git", "agent.json"), JSON.stringify({ steps: GOOD_RESEARCH }));
  ok(dir, ["research", "1", "--script", join(dir, ".git", "agent.json")], { BATON_KEY_DIR: keys });
  return dir;
}

function evidenceFile(dir: string, folder = FOLDER): string {
  const name = readdirSync(join(dir, folder, "evidence")).find((n) => n.endsWith("-research.json"))!;
  return join(dir, folder, "evidence", name);
}

function verify(dir: string, args: string[] = []) {
  const result = runBaton(dir, ["verify", "--json", ...args]);
  return { status: result.status, report: JSON.parse(result.stdout) };
}

const reasons = (report: { phantoms: Array<{ reasons: string[] }> }) =>
  report.phantoms.flatMap((p) => p.reasons);

describe("signed evidence", () => {
  it("an honest run is verified with the key its adoption committed, and the private key is not in the repository", () => {
    const keys = keyDir();
    const dir = researchedRepo(keys);
    const { status, report } = verify(dir);
    expect(status).toBe(0);
    expect(report.verified).toHaveLength(1);
    const evidence = JSON.parse(readFileSync(evidenceFile(dir), "utf8"));
    expect(evidence.version).toBe(2);
    expect(report.keys.roots).toEqual([expect.objectContaining({ fingerprint: evidence.signature.key })]);
    expect(git(dir, ["show", "--name-only", "--format=", "HEAD"])).toContain(
      `.baton/keys/${evidence.signature.key}.pub`,
    );
    const committed = git(dir, ["ls-tree", "-r", "--name-only", "HEAD"]).trim().split("\n");
    for (const file of committed)
      expect(git(dir, ["show", `HEAD:${file}`]), file).not.toContain("PRIVATE KEY");
  });

  it("catches an edited evidence file, committed by amending Baton's commit", () => {
    const dir = researchedRepo(keyDir());
    const path = evidenceFile(dir);
    const evidence = JSON.parse(readFileSync(path, "utf8"));
    evidence.agent = "someone-else";
    writeFileSync(path, `${JSON.stringify(evidence, null, 2)}\n`);
    git(dir, ["commit", "-q", "--amend", "--no-edit", "-a"]);
    const { status, report } = verify(dir);
    expect(status).toBe(1);
    expect(reasons(report)).toContain(
      "its evidence does not match its signature (changed after Baton signed it)",
    );
  });

  it("catches an amended artifact whose evidence hashes were recomputed to match", () => {
    const dir = researchedRepo(keyDir());
    const text = `# Research Report\n\n${"A finding nobody checked. ".repeat(20)}\n`;
    writeFileSync(join(dir, REPORT), text);
    const path = evidenceFile(dir);
    const evidence = JSON.parse(readFileSync(path, "utf8"));
    const bytes = Buffer.from(text);
    evidence.artifacts[0].sha256 = createHash("sha256").update(bytes).digest("hex");
    evidence.artifacts[0].bytes = bytes.length;
    evidence.artifacts[0].blob = git(dir, ["hash-object", REPORT]).trim();
    evidence.work[REPORT] = evidence.artifacts[0].blob;
    writeFileSync(path, `${JSON.stringify(evidence, null, 2)}\n`);
    git(dir, ["commit", "-q", "--amend", "--no-edit", "-a"]);
    const { status, report } = verify(dir);
    expect(status).toBe(1);
    expect(reasons(report)).toEqual([
      "its evidence does not match its signature (changed after Baton signed it)",
    ]);
  });

  it("catches a file smuggled into Baton's commit that its evidence does not list", () => {
    const dir = researchedRepo(keyDir());
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "backdoor.js"), "module.exports = () => true;\n");
    git(dir, ["add", "src/backdoor.js"]);
    git(dir, ["commit", "-q", "--amend", "--no-edit"]);
    const { status, report } = verify(dir);
    expect(status).toBe(1);
    expect(reasons(report)).toEqual(["the commit changes src/backdoor.js, which its evidence does not list"]);
  });

  it("catches a hand-made completion: unsigned evidence, and evidence signed by a key nobody vouched for", () => {
    const dir = researchedRepo(keyDir());
    const real = JSON.parse(readFileSync(evidenceFile(dir), "utf8"));
    const forge = (signWith: "none" | "own key") => {
      const state = JSON.parse(readFileSync(join(dir, "specs/state.json"), "utf8"));
      state.active_projects.find((t: { project_number: number }) => t.project_number === 2).status =
        "researched";
      writeFileSync(join(dir, "specs/state.json"), `${JSON.stringify(state, null, 2)}\n`);
      // biome-ignore lint/suspicious/noExplicitAny: a forged record is whatever the forger writes
      const forged: any = { ...real, task: 2, work: {}, artifacts: [], signature: undefined };
      if (signWith === "own key") {
        const pair = generateKeyPairSync("ed25519");
        const pem = pair.publicKey.export({ type: "spki", format: "pem" }).toString();
        const { signature: _s, ...body } = forged;
        forged.signature = {
          key: fingerprintOf(pem),
          value: sign(null, Buffer.from(canonicalJson(body)), pair.privateKey).toString("base64"),
        };
        mkdirSync(join(dir, ".baton", "keys"), { recursive: true });
        writeFileSync(join(dir, ".baton", "keys", `${fingerprintOf(pem)}.pub`), pem);
        git(dir, ["add", "-f", ".baton/keys"]);
      }
      const folder = "specs/2_study_the_parser/evidence";
      mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(
        join(dir, folder, `${real.session}-research.json`),
        `${JSON.stringify(forged, null, 2)}\n`,
      );
      git(dir, ["add", "-A"]);
      git(dir, ["commit", "-qm", "task 2: complete research", "-m", `Session: ${real.session}`]);
    };
    forge("none");
    expect(reasons(verify(dir).report)).toEqual(["its evidence is not signed"]);
    git(dir, ["reset", "-q", "--hard", "HEAD~1"]);
    forge("own key");
    const { status, report } = verify(dir);
    expect(status).toBe(1);
    expect(reasons(report)).toEqual([
      expect.stringMatching(/^its evidence is signed by key [0-9a-f]{32}, which no trusted key vouches for$/),
    ]);
    expect(report.keys.unvouched).toHaveLength(1);
    expect(runBaton(dir, ["verify"]).stdout).toMatch(
      /KEY {5}[0-9a-f]{32} was added in [0-9a-f]{10} and no trusted key vouches for it/,
    );
  });

  it("trusts a second machine's key once a trusted key vouches for it, and a pinned root replaces adoption's", () => {
    const first = keyDir();
    const second = keyDir();
    const dir = researchedRepo(first);
    ok(dir, ["research", "2", "--script", join(dir, ".git", "agent.json")], { BATON_KEY_DIR: second });
    const before = verify(dir);
    expect(before.status).toBe(1);
    const secondKey = before.report.keys.unvouched[0].fingerprint as string;
    expect(ok(dir, ["key"], { BATON_KEY_DIR: second }).stdout).toContain("trusted by this history: no");
    ok(dir, ["key", "vouch", secondKey], { BATON_KEY_DIR: first });
    git(dir, ["add", "-f", ".baton/keys"]);
    git(dir, ["commit", "-qm", "vouch for the second machine's key"]);
    const after = verify(dir);
    expect(after.status).toBe(0);
    expect(after.report.verified.map((c: { task: number }) => c.task)).toEqual([1, 2]);
    // Pinned to the second key alone, the first machine's evidence is what is not trusted.
    const pinned = verify(dir, ["--trust", secondKey]);
    expect(pinned.report.phantoms.map((p: { task: number }) => p.task)).toEqual([1]);
  });

  it("lists a result whose agent ran unsandboxed apart from the verified ones", () => {
    const keys = keyDir();
    const dir = researchedRepo(keys);
    ok(dir, ["research", "2", "--script", join(dir, ".git", "agent.json"), "--sandbox", "off"], {
      BATON_KEY_DIR: keys,
    });
    const { status, report } = verify(dir);
    expect(status).toBe(0);
    expect(report.verified.map((c: { task: number }) => c.task)).toEqual([1]);
    expect(report.unsandboxed.map((c: { task: number }) => c.task)).toEqual([2]);
    expect(okJson(dir, ["verify", "--json"]).unsandboxed).toHaveLength(1);
    expect(runBaton(dir, ["verify"]).stdout).toContain("run unsandboxed");
  });
});
