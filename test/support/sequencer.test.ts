import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { compareKnown, DURATIONS_FILE, type KnownFile } from "./sequencer.js";

it("orders test files unknown first, then failed, then longest first", () => {
  const files: Record<string, KnownFile> = {
    short: { duration: 1_000, failed: false },
    long: { duration: 90_000, failed: false },
    unknown: { duration: undefined, failed: false },
    failedShort: { duration: 500, failed: true },
    middle: { duration: 30_000, failed: false },
  };
  const order = Object.keys(files).sort((a, b) => compareKnown(files[a]!, files[b]!));
  expect(order).toEqual(["unknown", "failedShort", "long", "middle", "short"]);
});

it("keeps a duration for each file in the table as project:path in whole milliseconds", () => {
  const table = JSON.parse(readFileSync(DURATIONS_FILE, "utf8")) as Record<string, unknown>;
  for (const [key, ms] of Object.entries(table)) {
    expect(key).toMatch(/^(unit|e2e):(src|test)\/.+\.test\.ts$/);
    expect(Number.isInteger(ms) && (ms as number) >= 0, key).toBe(true);
  }
  expect(table["e2e:test/e2e/queue.test.ts"]).toBeGreaterThan(
    table["unit:src/shared/errors.test.ts"] as number,
  );
});
