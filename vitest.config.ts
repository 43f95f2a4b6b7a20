import { defineConfig } from "vitest/config";

// Two projects so the inner loop is fast: `npm run test:unit` runs the tests beside the code;
// `npm test` runs both (the e2e project drives the built CLI and the real Claude Code binary).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["src/**/*.test.ts"], exclude: ["src/**/*.e2e.test.ts"] },
      },
      {
        extends: true,
        test: { name: "e2e", include: ["test/**/*.test.ts", "src/**/*.e2e.test.ts"] },
      },
    ],
  },
});
