import { describe, expect, it } from "vitest";
import { isoDate, isoTimestamp, newSessionId, SESSION_ID_PATTERN } from "./time.js";

describe("time and session ids", () => {
  it("formats timestamps as specs/ does, without milliseconds", () => {
    const date = new Date("2026-03-16T23:29:19.456Z");
    expect(isoTimestamp(date)).toBe("2026-03-16T23:29:19Z");
    expect(isoDate(date)).toBe("2026-03-16");
  });

  it("makes canonical, unique session ids from the clock", () => {
    const date = new Date("2026-03-16T23:00:00Z");
    const ids = new Set(Array.from({ length: 200 }, () => newSessionId(date)));
    expect(ids.size).toBeGreaterThan(195);
    for (const id of ids) {
      expect(id).toMatch(SESSION_ID_PATTERN);
      expect(id.startsWith(`sess_${date.getTime() / 1000}_`)).toBe(true);
    }
  });
});
