// One contending writer for bench/concurrency.mjs, forked with an IPC channel. It loads the library
// before reporting "ready" so that the measured window holds lock contention and writes, not the
// ~50 ms node start-up of 64 processes fighting for 2 cores.
import { pathToFileURL } from "node:url";

const [distIndex, repo, numberArg, iterationsArg] = process.argv.slice(2);
const number = Number(numberArg);
const iterations = Number(iterationsArg);
const { changeStatus, loadConfig, mutateStore, requireTask, storeContext } = await import(
  pathToFileURL(distIndex).href
);

// Config is loaded once, as a long-running agent would; each cycle still takes the lock, re-reads
// both files from disk and commits through the journal.
const ctx = storeContext(await loadConfig(repo));

async function run() {
  const latencies = [];
  const errors = [];
  let ok = 0;
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    try {
      await mutateStore(ctx, { command: `bench worker ${number}` }, (tx) => {
        const task = requireTask(tx, number);
        // Alternating keeps every step a valid move under MANUAL_TRANSITIONS without --force.
        const target = task.status === "blocked" ? "not_started" : "blocked";
        changeStatus(tx, number, target, { reason: `bench round ${i}` });
        // Same transaction as the status change: a lost update shows up as a counter below `iterations`.
        task["bench_counter"] = (task["bench_counter"] ?? 0) + 1;
      });
      ok++;
    } catch (error) {
      errors.push(`${error?.code ?? "ERROR"}: ${error?.message ?? String(error)}`);
    }
    latencies.push(performance.now() - start);
  }
  return { number, ok, errors, latencies };
}

process.on("message", async (message) => {
  if (message !== "go") return;
  const result = await run();
  process.send(result, () => process.exit(0));
});
process.send("ready");
