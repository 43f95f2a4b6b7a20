import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { bundleForTest } from "../testing/bundle.js";
import { type RunProcessOptions, runProcess } from "./process.js";

const dir = mkdtempSync(join(tmpdir(), "baton-process-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { cwd: dir, timeoutMs: 10_000 } satisfies Partial<RunProcessOptions>;
const sh = (script: string, extra: Partial<RunProcessOptions> = {}) =>
  runProcess({ ...base, command: "sh", args: ["-c", script], ...extra });

/** Members of a process group that still run, as `ps` sees them (zombies are dead, so they do not count). */
function survivors(pgid: number): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,stat=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && !stat?.startsWith("Z"))
    .map((fields) => fields.join(" "));
}

describe("runProcess", () => {
  it("succeeds with exit code 0 and keeps stdout, stderr, pid and duration", async () => {
    const result = await sh("echo out; echo err >&2");
    expect(result).toMatchObject({ ok: true, exitCode: 0, signal: null, stdout: "out\n", stderr: "err\n" });
    expect(result.pid).toBeGreaterThan(0);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.leftoversKilled).toBe(false);
  });

  it("reports a non-zero exit code as reason exit", async () => {
    const result = await sh("echo failing >&2; exit 3");
    expect(result).toMatchObject({
      ok: false,
      reason: "exit",
      exitCode: 3,
      signal: null,
      stderr: "failing\n",
    });
    if (!result.ok) expect(result.message).toBe("exited with code 3");
  });

  it("reports death by a signal as reason signal", async () => {
    const result = await sh("echo before; kill -KILL $$");
    expect(result).toMatchObject({ ok: false, reason: "signal", signal: "SIGKILL", exitCode: null });
    expect(result.stdout).toBe("before\n");
  });

  it("on timeout kills the whole group, grandchildren included", async () => {
    let pgid = 0;
    const result = await sh("sleep 100 & sleep 100 & echo ready; wait", {
      timeoutMs: 1000,
      onSpawn: (pid) => {
        pgid = pid;
      },
    });
    expect(result).toMatchObject({ ok: false, reason: "timeout", signal: "SIGTERM", stdout: "ready\n" });
    expect(result.pid).toBe(pgid);
    expect(result.durationMs).toBeGreaterThanOrEqual(1000);
    expect(survivors(pgid)).toEqual([]);
  });

  it("escalates to SIGKILL after the grace period when SIGTERM is ignored", async () => {
    // `trap "" TERM` makes sh and every child it starts ignore SIGTERM; the limit leaves a loaded machine
    // time to start sh and set the trap before SIGTERM comes.
    const result = await sh(`trap "" TERM; sleep 100 & sleep 100 & wait`, {
      timeoutMs: 1000,
      killGraceMs: 300,
    });
    expect(result).toMatchObject({ ok: false, reason: "timeout", signal: "SIGKILL" });
    expect(result.durationMs).toBeGreaterThanOrEqual(1300);
    expect(survivors(result.pid!)).toEqual([]);
  });

  it("kills what the child left running after a normal exit, without waiting for its pipes", async () => {
    const result = await sh("sleep 100 & echo done");
    expect(result).toMatchObject({ ok: true, stdout: "done\n", leftoversKilled: true });
    expect(survivors(result.pid!)).toEqual([]);
  });

  it("reads output until the pipes go quiet, judged after polling them again", async () => {
    // A grandchild that left the group keeps writing after the child exited, for longer than the quiet wait
    // but never pausing nearly as long: all of it is kept. A wait on a timer alone (as before) ends while
    // output is still coming. The child leaves only once the grandchild has written, so a slow start under
    // load cannot make the pipes look quiet; the pauses are a fifth of the quiet wait.
    const started = join(dir, "grandchild-started");
    const grandchild = `echo 1; touch ${started}; for i in 2 3 4 5 6 7 8; do sleep 0.2; echo $i; done`;
    const result = await sh(
      `setsid sh -c '${grandchild}' & while [ ! -e ${started} ]; do sleep 0.01; done; echo start`,
      { drainQuietMs: 1000 },
    );
    expect(result).toMatchObject({ ok: true });
    expect(result.stdout.split("\n").sort()).toEqual(["", "1", "2", "3", "4", "5", "6", "7", "8", "start"]);
  });

  it("stops the group when the signal aborts, and does not start when already aborted", async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const result = await sh("echo ready; sleep 100 & wait", {
      signal: controller.signal,
      onStdoutLine: (line) => {
        lines.push(line);
        controller.abort();
      },
    });
    expect(lines).toEqual(["ready"]);
    expect(result).toMatchObject({ ok: false, reason: "aborted" });
    expect(survivors(result.pid!)).toEqual([]);

    const never = await sh("echo never", { signal: AbortSignal.abort() });
    expect(never).toMatchObject({ ok: false, reason: "aborted", pid: null, stdout: "" });
  });

  it("delivers stdin and closes it", async () => {
    const result = await runProcess({ ...base, command: "cat", stdin: "first\nsecond, no newline" });
    expect(result).toMatchObject({ ok: true, stdout: "first\nsecond, no newline" });
  });

  it("gives a process without stdin input an immediate end of file", async () => {
    const result = await runProcess({ ...base, command: "cat", timeoutMs: 2000 });
    expect(result).toMatchObject({ ok: true, stdout: "" });
  });

  it("splits lines across partial chunks and CRLF, and emits the last unterminated line", async () => {
    const script = [
      "const w = (s) => new Promise((r) => process.stdout.write(s, () => setTimeout(r, 30)));",
      'await w("par"); await w("tial\\r"); await w("\\nnext\\r\\n\\nlast");',
      'process.stderr.write("e1\\ne2");',
    ].join("\n");
    const out: string[] = [];
    const err: string[] = [];
    const result = await runProcess({
      ...base,
      command: process.execPath,
      args: ["--input-type=module", "-e", script],
      onStdoutLine: (line) => out.push(line),
      onStderrLine: (line) => err.push(line),
    });
    expect(result.ok).toBe(true);
    expect(out).toEqual(["partial", "next", "", "last"]);
    expect(err).toEqual(["e1", "e2"]);
  });

  it("passes arguments verbatim, never through a shell unless asked", async () => {
    const tricky = ["$(echo no)", "a b", "'quoted'", "; rm -rf /", "*"];
    const result = await runProcess({
      ...base,
      command: process.execPath,
      args: ["-e", "console.log(JSON.stringify(process.argv.slice(1)))", ...tricky],
    });
    expect(JSON.parse(result.stdout)).toEqual(tricky);
    const shell = await runProcess({ ...base, command: "echo $((1 + 2))", shell: true });
    expect(shell.stdout).toBe("3\n");
  });

  it("passes the environment it is given and nothing else", async () => {
    const result = await runProcess({
      ...base,
      command: process.execPath,
      args: ["-e", "console.log(process.env.ONLY_THIS + ' ' + process.env.HOME)"],
      env: { ONLY_THIS: "yes" },
    });
    expect(result.stdout).toBe("yes undefined\n");
  });

  it("keeps only the tail of a long output, starting on a character boundary", async () => {
    const result = await runProcess({
      ...base,
      command: process.execPath,
      args: ["-e", "process.stdout.write('é'.repeat(100000) + 'END')"],
      tailBytes: 1001,
    });
    expect(result.truncated).toEqual({ stdout: true, stderr: false });
    expect(result.stdout.endsWith("END")).toBe(true);
    expect(result.stdout).toMatch(/^é+END$/);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(1001);
  });

  it("reports a missing binary or working directory as spawn_failed", async () => {
    const missing = await runProcess({ ...base, command: "baton-no-such-binary-xyz" });
    expect(missing).toMatchObject({ ok: false, reason: "spawn_failed", pid: null });
    if (!missing.ok) expect(missing.message).toContain("ENOENT");
    const noDir = await runProcess({ ...base, command: "true", cwd: join(dir, "missing") });
    expect(noDir).toMatchObject({ ok: false, reason: "spawn_failed" });
    if (!noDir.ok) expect(noDir.message).toContain("does not exist");
    const badArg = await runProcess({ ...base, command: "echo", args: ["nul\0byte"] });
    expect(badArg).toMatchObject({ ok: false, reason: "spawn_failed" });
  });

  it("rethrows an exception from a line callback after killing the group", async () => {
    let pgid = 0;
    const run = sh("echo boom; sleep 100", {
      onSpawn: (pid) => {
        pgid = pid;
      },
      onStdoutLine: () => {
        throw new Error("callback bug");
      },
    });
    await expect(run).rejects.toThrow("callback bug");
    expect(survivors(pgid)).toEqual([]);
  });

  it("installs its exit-signal handlers only while a process runs", async () => {
    const before = ["SIGINT", "SIGTERM", "SIGHUP", "exit"].map((e) => process.listenerCount(e));
    let during: number[] = [];
    await sh("echo x", {
      onStdoutLine: () => {
        during = ["SIGINT", "SIGTERM", "SIGHUP", "exit"].map((e) => process.listenerCount(e));
      },
    });
    expect(during).toEqual(before.map((n) => n + 1));
    expect(["SIGINT", "SIGTERM", "SIGHUP", "exit"].map((e) => process.listenerCount(e))).toEqual(before);
  });
});

describe("runProcess when Baton itself is stopped", () => {
  let harness = "";
  const harnessSource = `
    import { runProcess } from "./process.ts";
    await runProcess({
      command: "sh",
      args: ["-c", "sleep 100 & sleep 100 & echo ready; wait"],
      cwd: process.cwd(),
      timeoutMs: 60000,
      onSpawn: (pid) => console.log("pgid " + pid),
    });
    console.log("finished normally");
  `;

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`kills the agent's group on ${signal} and then dies of it`, async () => {
      harness ||= await bundleForTest(
        { contents: harnessSource, resolveDir: import.meta.dirname },
        join(dir, "harness.mjs"),
      );
      const parent = spawn(process.execPath, [harness], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
      let stdout = "";
      const pgid = await new Promise<number>((resolve) => {
        parent.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk;
          const match = /pgid (\d+)/.exec(stdout);
          if (match) resolve(Number(match[1]));
        });
      });
      await sleep(100);
      expect(survivors(pgid).length).toBe(3);
      parent.kill(signal);
      const [code, diedOf] = await new Promise<[number | null, string | null]>((resolve) =>
        parent.once("exit", (c, s) => resolve([c, s])),
      );
      expect({ code, diedOf }).toEqual({ code: null, diedOf: signal });
      expect(stdout).not.toContain("finished normally");
      await sleep(50);
      expect(survivors(pgid)).toEqual([]);
    });
  }
});

describe("runProcess when its caller handles the stop itself (handleSignal)", () => {
  it("leaves an owner-stopped group its grace period: SIGTERM first, the caller goes on", async () => {
    const source = `
      import { handleSignal } from "./process-group.ts";
      import { runProcess } from "./process.ts";
      const abort = new AbortController();
      const off = handleSignal("SIGINT", () => abort.abort());
      const result = await runProcess({
        command: "sh",
        args: ["-c", "trap 'echo got-term; exit 3' TERM; echo ready; while :; do sleep 0.05; done"],
        cwd: process.cwd(),
        timeoutMs: 60000,
        killGraceMs: 5000,
        signal: abort.signal,
        onParentStop: "owner",
        onStdoutLine: (line) => console.log(line),
      });
      off();
      console.log("finished " + result.ok + " " + result.reason);
    `;
    const harness = await bundleForTest(
      { contents: source, resolveDir: import.meta.dirname },
      join(dir, "owner.mjs"),
    );
    const parent = spawn(process.execPath, [harness], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    await new Promise<void>((resolve) => {
      parent.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk;
        if (stdout.includes("ready")) resolve();
      });
    });
    parent.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => parent.once("exit", (c) => resolve(c)));
    expect(code).toBe(0);
    expect(stdout).toContain("got-term");
    expect(stdout).toContain("finished false aborted");
  });
});

describe("the child's directory", () => {
  it("is its cwd in PWD too, whatever PWD the caller inherited", async () => {
    const dir = mkdtempSync(join(tmpdir(), "baton-pwd-"));
    try {
      const result = await runProcess({
        command: "sh",
        args: ["-c", 'printf %s "$PWD"'],
        cwd: dir,
        env: { ...process.env, PWD: "/somewhere/else" },
        timeoutMs: 10_000,
      });
      expect(result.stdout).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
