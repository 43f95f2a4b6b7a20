import { describe, expect, it } from "vitest";
import { personOnlyCommand } from "./refuse-person-commands.js";

describe("a tool call of a command only a person may run", () => {
  it.each([
    "baton approve 12",
    "baton reject 12 --reason x",
    "node '/opt/baton/bin/baton.js' approve 12",
    "cd /repo && baton approve 12",
    "/usr/local/bin/baton approve 3 --sha256 abc",
    "echo y | baton approve 1",
  ])("is refused: %s", (command) => {
    expect(personOnlyCommand(command, "node '/opt/baton/bin/baton.js'")).toMatch(/only the person answers/);
  });

  it.each([
    "baton approvals",
    "baton task list",
    "echo approve",
    "git commit -m 'baton: reject the idea'",
    "baton plan 12",
  ])("runs: %s", (command) => {
    expect(personOnlyCommand(command, "baton")).toBeNull();
  });
});
