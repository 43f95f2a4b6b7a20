import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempStore } from "../testing/store-fixture.js";
import { runDoctorChecks } from "./doctor-checks.js";
import { mutateStore, readStore } from "./store.js";

let cleanup = () => {};
afterEach(() => cleanup());

const LIBRARY = resolve(import.meta.dirname, "../../dist/index.js");

describe("kill -9 during writes", () => {
  it("never leaves state.json and TODO.md disagreeing", async () => {
    const t = await tempStore({ active: 6, archived: 2 });
    cleanup = t.cleanup;
    // A worker that flips task statuses and archives as fast as it can, until it is killed.
    const worker = `
      const b = await import(${JSON.stringify(LIBRARY)});
      const ctx = b.storeContext(await b.loadConfig(${JSON.stringify(t.dir)}));
      for (let i = 0; ; i++) {
        await b.mutateStore(ctx, { command: "crash-test" }, (tx) => {
          const task = b.addTask(tx, { title: "Crash test " + i });
          b.changeStatus(tx, task.project_number, "blocked", { reason: "r" });
          if (i % 3 === 0) b.abandonTasks(tx, [task.project_number]);
        });
        // i = 0 is abandoned at once; after i = 1 an active task is there for the final count.
        if (i === 1) process.stdout.write("ready\\n");
      }`;
    for (let round = 0; round < 12; round++) {
      const child = spawn(process.execPath, ["--input-type=module", "-e", worker], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      // Killed only once it has written: on a loaded machine a fixed delay can end it before it wrote anything.
      await new Promise<void>((ready, fail) => {
        child.stdout.once("data", () => ready());
        child.once("exit", (code) => fail(new Error(`the worker exited (${code}) before its first write`)));
      });
      await new Promise((r) => setTimeout(r, Math.random() * 200));
      child.kill("SIGKILL");
      await new Promise((r) => child.on("exit", r));
      // The next writer rolls any interrupted commit forward (or discards one that never reached its journal).
      await mutateStore(t.ctx, { command: "after-crash" }, () => {});
      const errors = runDoctorChecks(t.ctx).filter((f) => f.severity === "error");
      expect(errors, `round ${round}`).toEqual([]);
    }
    expect(readStore(t.ctx).state.tasks.length).toBeGreaterThan(6);
  });
});
