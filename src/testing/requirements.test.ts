import { afterEach, describe, expect, it, vi } from "vitest";
import { MissingTestRequirement, requireUnderCi, sharedFixture } from "./requirements.js";

afterEach(() => vi.unstubAllEnvs());

describe("test requirements", () => {
  it("skips a missing requirement off CI and fails it under CI=true", () => {
    vi.stubEnv("CI", "");
    expect(requireUnderCi("x", "gone")).toBe(false);
    expect(sharedFixture("no-such-fixture")).toBeNull();
    vi.stubEnv("CI", "true");
    expect(() => requireUnderCi("x", "gone")).toThrow(MissingTestRequirement);
    expect(() => sharedFixture("no-such-fixture")).toThrow(/no-such-fixture is missing under CI=true/);
    expect(requireUnderCi("x", null)).toBe(true);
  });
});
