import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import DurationSequencer from "./test/support/sequencer.js";

// Two projects so the inner loop is fast: `npm run test:unit` runs the tests beside the code;
// `npm test` runs both (the e2e project drives the built CLI and the real Claude Code binary).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/support/temp-root.ts"],
    // vitest's default (cores - 1) runs one file at a time on 2 cores, where the e2e files spend much of their
    // time waiting on the processes they start: one more worker than cores kept both busy (2 cores: 1,298 s
    // → 931 s for the whole suite, side by side on one machine; every test passed).
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts"],
          exclude: ["src/**/*.e2e.test.ts"],
          // The unit files restore what they change (environment, temp folders), so one module graph can serve
          // them all: 167 → 124 CPU-s for the project, most of it imports (side by side, every test passing).
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "e2e", include: ["test/**/*.test.ts", "src/**/*.e2e.test.ts"] },
      },
    ],
  },
});
