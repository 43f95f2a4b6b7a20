import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * vitest's global setup: the whole run gets a temp folder of its own as TMPDIR, inherited by every worker and
 * every process a test starts (Baton, git, the agents' shells). At the end whatever is still in it was left
 * behind by a test or a process that outlived its test: listed, and a failure under CI, where nothing else
 * shares the folder; the folder goes either way, so no run litters the machine's /tmp.
 */
export default function setup(): () => void {
  // Each project runs the global setup; the first one makes the folder for the whole run.
  if (process.env["BATON_SUITE_TMPDIR"]) return () => undefined;
  const root = mkdtempSync(join(tmpdir(), "baton-suite-"));
  // As /tmp is: the tests that run PostgreSQL or Baton as another user make and enter folders here too.
  chmodSync(root, 0o1777);
  process.env["BATON_SUITE_TMPDIR"] = root;
  process.env["TMPDIR"] = root;
  // Every Node process the tests start (about 2,000: the CLI, hooks, scripted agents, Claude Code) would parse
  // this CA bundle at its start, 50 ms of CPU each, for TLS that nothing here uses: every server is 127.0.0.1.
  delete process.env["NODE_EXTRA_CA_CERTS"];
  return () => {
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length === 0) return;
    const message = `${left.length} temp folder(s) left behind by the tests (each test removes what it makes): ${left.slice(0, 20).join(", ")}`;
    console.error(message);
    // vitest reports an error thrown here but still exits 0; the exit code is what CI reads.
    if (process.env["CI"] === "true") process.exitCode = 1;
  };
}
