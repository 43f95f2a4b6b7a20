import { describe, expect, it } from "vitest";
import { HOOK_MODES, HOST_SANDBOX_SETTINGS } from "../../init/index.js";
import { oneOf } from "./choice.js";

describe("an option that takes one word of a list", () => {
  it("gives the word back, or nothing when the option was not given", () => {
    expect(oneOf("--hooks", HOOK_MODES, "http")).toBe("http");
    expect(oneOf("--hooks", HOOK_MODES, undefined)).toBeUndefined();
  });

  it("refuses any other word, naming the flag and every word of the list", () => {
    expect(() => oneOf("--hooks", HOOK_MODES, "HTTP")).toThrow(
      '--hooks must be "command", "http" or "resident", got "HTTP"',
    );
    expect(() => oneOf("--host-sandbox", HOST_SANDBOX_SETTINGS, "")).toThrow(
      '--host-sandbox must be "on" or "off", got ""',
    );
  });
});
