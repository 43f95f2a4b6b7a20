import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { readManifest } from "../../init/manifest.js";
import { TEST_BIN, tempRepo } from "../../init/test-repo.js";
import { runInit } from "../index.js";
import { mcpCommand } from "../mcp-command.js";
import { opencode } from "../opencode/index.js";

const servers = (root: string) => JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")).mcpServers;

describe("baton init --mcp", () => {
  it("registers baton mcp beside the repository's own servers, keeps it on a re-run, and takes only it out", async () => {
    const root = tempRepo();
    writeFileSync(join(root, ".mcp.json"), '{"mcpServers":{"theirs":{"command":"their-server"}}}\n');
    await runInit({ root, bin: TEST_BIN, hostSandbox: "off", mcp: true });
    expect(servers(root)).toEqual({ theirs: { command: "their-server" }, baton: mcpCommand(TEST_BIN) });
    await runInit({ root, hostSandbox: "off" });
    expect(servers(root).baton).toEqual(mcpCommand(TEST_BIN));
    await runInit({ root, hostSandbox: "off", mcp: false });
    expect(servers(root)).toEqual({ theirs: { command: "their-server" } });
    expect(readManifest(root)!.manifest.mcp).toBeUndefined();
    await runInit({ root, hostSandbox: "off", mcp: true });
    await runInit({ root, uninstall: true });
    expect(servers(root)).toEqual({ theirs: { command: "their-server" } });
  });

  it("starts Baton through the shell when it is not the plain command on PATH", () => {
    expect(mcpCommand("baton")).toEqual({ command: "baton", args: ["mcp"] });
    expect(mcpCommand("node '/opt/baton/bin/baton.js'")).toEqual({
      command: "sh",
      args: ["-c", "node '/opt/baton/bin/baton.js' mcp"],
    });
  });
});

describe("baton init --mcp --host opencode", () => {
  it("sets mcp.baton as a local server in opencode.json beside the user's, and gives back what it replaced", async () => {
    const root = tempRepo();
    const config = join(root, "opencode.json");
    writeFileSync(
      config,
      '{\n  // mine\n  "mcp": { "docs": { "type": "remote", "url": "https://docs.example" } }\n}\n',
    );
    const before = readFileSync(config, "utf8");
    await runInit({ root, bin: TEST_BIN, hostSandbox: "off", hosts: [opencode], mcp: true });
    const mcp = parse(readFileSync(config, "utf8")).mcp;
    expect(mcp.docs).toEqual({ type: "remote", url: "https://docs.example" });
    expect(mcp.baton).toEqual({
      type: "local",
      command: Object.values(mcpCommand(TEST_BIN)).flat(),
      enabled: true,
    });
    await runInit({ root, hostSandbox: "off", mcp: false });
    expect(parse(readFileSync(config, "utf8")).mcp.baton).toBeUndefined();
    await runInit({ root, hostSandbox: "off", mcp: true });
    await runInit({ root, uninstall: true });
    expect(readFileSync(config, "utf8")).toBe(before);
  });
});
