import { describe, expect, it } from "vitest";
import { inert } from "./terminal-text.js";

describe("text a terminal shows, not obeys", () => {
  it("shows escape sequences, bells, backspaces and a lone carriage return as \\xNN; keeps lines and tabs", () => {
    expect(inert("Fix \u001b[2J\u001b]0;pwned\u0007parser")).toBe("Fix \\x1b[2J\\x1b]0;pwned\\x07parser");
    expect(inert("ok\rFAKE\bX\u009b31m")).toBe("ok\\x0dFAKE\\x08X\\x9b31m");
    expect(inert("a\r\nb\n\tc")).toBe("a\nb\n\tc");
  });
});
