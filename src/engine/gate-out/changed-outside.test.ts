import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { changedOutside } from "./changed-outside.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe("what a run changed outside the repository", () => {
  it("finds the configuration and PATH files changed since, by change time, whatever their modification time says", async () => {
    const home = mkdtempSync(join(tmpdir(), "baton-outside-"));
    dirs.push(home);
    const bin = join(home, "bin");
    mkdirSync(bin);
    mkdirSync(join(home, ".config", "go"), { recursive: true });
    mkdirSync(join(home, ".local", "lib", "python3", "site-packages"), { recursive: true });
    mkdirSync(join(home, "projects", "deep"), { recursive: true });
    writeFileSync(join(home, ".bashrc"), "old\n");
    writeFileSync(join(bin, "tool"), "old\n");
    await sleep(120);
    const since = Date.now();
    await sleep(120);
    writeFileSync(join(home, ".npmrc"), "node-options=--require x\n");
    writeFileSync(join(home, ".config", "go", "env"), "GOFLAGS=-tags=cheat\n");
    const custom = join(home, ".local", "lib", "python3", "site-packages", "usercustomize.py");
    writeFileSync(custom, "import os\n");
    // Set back in time: the change time still says when it happened.
    utimesSync(custom, new Date(2000, 0, 1), new Date(2000, 0, 1));
    writeFileSync(join(bin, "node"), "#!/bin/sh\n");
    writeFileSync(join(home, "projects", "deep", "notes.txt"), "not configuration\n");
    symlinkSync(join(home, ".npmrc"), join(bin, "npmrc-link"));
    const env = { HOME: home, PATH: `${bin}:/nonexistent`, XDG_CONFIG_HOME: "" };
    expect(changedOutside(since, env)).toEqual(
      [join(home, ".npmrc"), join(home, ".config", "go", "env"), custom, join(bin, "node")].sort(),
    );
  });
});
