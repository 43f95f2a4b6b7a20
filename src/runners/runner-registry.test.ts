import { describe, expect, it } from "vitest";
import { BatonConfigFile } from "../config/index.js";
import { RUNNER_TYPES } from "../shared/runner-names.js";
import { RUNNERS } from "./factory.js";

describe("the runner registry", () => {
  it("has an entry for every runner name, and the configuration accepts exactly those names", () => {
    expect(Object.keys(RUNNERS).sort()).toEqual([...RUNNER_TYPES].sort());
    for (const type of RUNNER_TYPES)
      expect(BatonConfigFile.safeParse({ runner: { type } }).success).toBe(true);
    expect(BatonConfigFile.safeParse({ runner: { type: "gemini" } }).success).toBe(false);
  });
});
