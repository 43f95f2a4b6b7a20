import { spawn, spawnSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { oneTaskRepo, tempDir } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("a baton linked to a clone (npm link) while the clone rebuilds", () => {
  it("keeps answering: every command run during the build exits 0", async () => {
    // A second installation: its own package.json and a copy of dist/ to rebuild.
    const install = tempDir("baton-rebuild-");
    const dist = join(install, "dist");
    cpSync(join(ROOT, "package.json"), join(install, "package.json"));
    cpSync(join(ROOT, "dist"), dist, { recursive: true });
    const dir = oneTaskRepo();
    const build = spawn(process.execPath, [join(ROOT, "scripts", "build.mjs")], {
      cwd: ROOT,
      env: { ...process.env, BATON_BUILD_DIR: dist },
      stdio: "ignore",
    });
    const done = new Promise<number | null>((resolve) => build.on("exit", resolve));
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    const failures: string[] = [];
    let runs = 0;
    while (!finished || runs < 3) {
      const result = spawnSync(process.execPath, [join(dist, "cli", "main.js"), "task", "show", "1"], {
        cwd: dir,
        encoding: "utf8",
      });
      runs++;
      if (result.status !== 0) failures.push(`${result.status}: ${result.stderr.slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await done).toBe(0);
    expect(runs).toBeGreaterThan(3);
    expect(failures).toEqual([]);
  });
});
