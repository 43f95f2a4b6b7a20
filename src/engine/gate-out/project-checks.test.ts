import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../config/index.js";
import { signingKey } from "../../evidence/index.js";
import { probeSandbox } from "../../runners/index.js";
import { batonKeyDir, SIGNING_KEY_FILE } from "../../shared/baton-paths.js";
import { requireUnderCi } from "../../testing/requirements.js";
import { checkPlace } from "./check-sandbox.js";
import { checksFor, describeFailedChecks, runChecks } from "./project-checks.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("project checks", () => {
  it("picks checks by where the work ends and the task's language", () => {
    const config = resolveConfig("/r", null, {
      checks: [
        { name: "all", run: "true" },
        { name: "lean", run: "lake build", languages: ["lean"], when: "phase" },
        { name: "end", run: "npm test", when: "operation" },
      ],
    });
    expect(checksFor(config, "lean", "phase").map((c) => c.name)).toEqual(["all", "lean"]);
    expect(checksFor(config, "general", "phase").map((c) => c.name)).toEqual(["all"]);
    expect(checksFor(config, "lean", "operation").map((c) => c.name)).toEqual(["all", "end"]);
  });

  it("runs every check in the work tree and reports each failure with its command, exit code and last lines", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-checks-"));
    writeFileSync(join(dir, "flag.txt"), "off\n");
    const config = resolveConfig(dir, null, {
      checks: [
        { name: "flag", run: "grep -qx on flag.txt" },
        { name: "loud", run: "for i in $(seq 1 30); do echo line $i; done; exit 4" },
        { name: "fine", run: "test -f flag.txt" },
      ],
    });
    const runs = await runChecks(config.checks, dir, checkPlace(dir, "specs", config.checks));
    expect(runs.map((r) => [r.name, r.ok, r.exitCode])).toEqual([
      ["flag", false, 1],
      ["loud", false, 4],
      ["fine", true, 0],
    ]);
    expect(runs[1]!.tail).toHaveLength(20);
    expect(runs[1]!.tail.at(-1)).toBe("line 30");
    const message = describeFailedChecks(runs);
    expect(message).toContain('check "flag" (`grep -qx on flag.txt`) failed: exit code 1');
    expect(message).toContain('check "loud"');
    expect(message).not.toContain('check "fine"');
  });
});

const bwrap = probeSandbox();
const sandboxed = requireUnderCi("bubblewrap", bwrap.ok ? null : bwrap.reason);

describe.skipIf(!sandboxed)("a check runs the agent's code in Baton's sandbox", () => {
  it("cannot read the signing key or another check's holdout, nor write git's folder or the store; the work tree it can", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-checks-"));
    execFileSync("git", ["init", "-q"], { cwd: dir });
    mkdirSync(join(dir, "specs"));
    writeFileSync(join(dir, "specs", "state.json"), "{}\n");
    const key = signingKey();
    const gitConfig = readFileSync(join(dir, ".git", "config"), "utf8");
    const keyFile = join(batonKeyDir(), SIGNING_KEY_FILE);
    expect(readFileSync(keyFile, "utf8")).toContain("PRIVATE KEY");
    const holdout = join(dir, "..", `${basename(dir)}-holdout`);
    mkdirSync(holdout);
    writeFileSync(join(holdout, "case.txt"), "secret case\n");
    try {
      const config = resolveConfig(dir, null, {
        checks: [
          { name: "key", run: `cat ${keyFile}` },
          { name: "holdout", run: `cat ${join(holdout, "case.txt")}` },
          { name: "git", run: "echo '[core]' >> .git/config" },
          { name: "store", run: "echo '{}' > specs/state.json" },
          { name: "work", run: "echo built > out.txt" },
          { name: "secret", run: 'cat "$BATON_HOLDOUT_DIR/case.txt"', holdout },
        ],
      });
      const runs = await runChecks(config.checks, dir, checkPlace(dir, "specs", config.checks));
      expect(runs.map((r) => [r.name, r.ok])).toEqual([
        ["key", false],
        ["holdout", false],
        ["git", false],
        ["store", false],
        ["work", true],
        ["secret", true],
      ]);
      expect(runs[0]!.tail.join("\n")).not.toContain("PRIVATE KEY");
      expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("built\n");
      expect(readFileSync(join(dir, ".git", "config"), "utf8")).toBe(gitConfig);
      expect(readFileSync(join(dir, "specs", "state.json"), "utf8")).toBe("{}\n");
      expect(key.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      rmSync(holdout, { recursive: true, force: true });
    }
  });

  it("has no network unless the check says it needs one: a server of this machine is out of reach", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-checks-"));
    const server = createServer((socket) => socket.end("hello\n"));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    const reach = `node -e "require('net').connect(${port}, '127.0.0.1').on('data', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(1); })"`;
    try {
      const config = resolveConfig(dir, null, {
        checks: [
          { name: "offline", run: reach },
          { name: "online", run: reach, network: true },
        ],
      });
      const runs = await runChecks(config.checks, dir, checkPlace(dir, "specs", config.checks));
      expect(runs.map((r) => [r.name, r.ok])).toEqual([
        ["offline", false],
        ["online", true],
      ]);
      expect(runs[0]!.tail.join("\n")).toContain("ECONNREFUSED");
    } finally {
      server.close();
    }
  });
});
