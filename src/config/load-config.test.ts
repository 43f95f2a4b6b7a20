import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.js";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "baton-config-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

describe("configuration", () => {
  it("defaults to the original layout", async () => {
    const dir = repo({});
    const config = await loadConfig(dir);
    expect(config.specsDir).toBe(join(dir, "specs"));
    expect(config.artifactNaming).toBe("v1");
    expect(config.routing["lean"]!.research).toBe("lean-research-agent");
    expect(config.routing["general"]!.implement).toBe("general-implementation-agent");
    expect(config.slug).toEqual({ maxLength: 50, separator: "_" });
  });

  it("reads JSON and merges routing per operation", async () => {
    const dir = repo({
      "baton.config.json": JSON.stringify({
        specsDir: "work/specs",
        artifactNaming: "v2",
        routing: { lean: { implement: "my-lean-agent" } },
      }),
    });
    const config = await loadConfig(dir);
    expect(config.specsDir).toBe(join(dir, "work/specs"));
    expect(config.artifactNaming).toBe("v2");
    expect(config.routing["lean"]).toMatchObject({
      implement: "my-lean-agent",
      research: "lean-research-agent",
    });
  });

  it("reads YAML", async () => {
    const config = await loadConfig(
      repo({ "baton.config.yaml": "languages: [general, rust]\ndefaultLanguage: rust\n" }),
    );
    expect(config.languages).toEqual(["general", "rust"]);
    expect(config.defaultLanguage).toBe("rust");
  });

  it("rejects unknown keys by name", async () => {
    await expect(loadConfig(repo({ "baton.config.json": '{"specDir": "x"}' }))).rejects.toThrow(
      /baton\.config\.json: \(top level\): unknown key "specDir"/,
    );
  });

  it("names the keys allowed where a nested unknown key is", async () => {
    await expect(loadConfig(repo({ "baton.config.json": '{"slug": {"maxLen": 40}}' }))).rejects.toMatchObject(
      {
        message: expect.stringContaining('slug: unknown key "maxLen"'),
        hint: "Allowed keys in slug: maxLength, separator.",
      },
    );
  });

  it("rejects wrong types with the field path", async () => {
    await expect(
      loadConfig(repo({ "baton.config.json": '{"routing": {"lean": {"research": 3}}}' })),
    ).rejects.toThrow(/routing\.lean\.research: expected string, got number 3/);
  });

  it("names the line of a YAML syntax error", async () => {
    await expect(
      loadConfig(repo({ "baton.config.yaml": "languages: [a, b\nspecsDir: x\n" })),
    ).rejects.toThrow(/baton\.config\.yaml:\d+:\d+: invalid YAML/);
  });

  it("names an alias bomb and a value nested past the stack instead of failing unexpectedly", async () => {
    const rows = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (const [prev, name] of [
      ["a", "b"],
      ["b", "c"],
      ["c", "d"],
      ["d", "e"],
      ["e", "f"],
    ])
      rows.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(", ")}]`);
    await expect(loadConfig(repo({ "baton.config.yaml": `${rows.join("\n")}\n` }))).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/baton\.config\.yaml: invalid YAML \(.*alias/),
    });
    const deep = `x: ${"[".repeat(5000)}${"]".repeat(5000)}\n`;
    await expect(loadConfig(repo({ "baton.config.yaml": deep }))).rejects.toMatchObject({
      code: "CONFIG_INVALID",
    });
    const deepJson = `{"x": ${"[".repeat(5000)}${"]".repeat(5000)}}`;
    await expect(loadConfig(repo({ "baton.config.json": deepJson }))).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(
        /baton\.config\.json:1:\d+: a value nested deeper than 64 levels \(at \.x\[0\]/,
      ),
    });
  });

  it("rejects routing for a language that is not configured", async () => {
    await expect(
      loadConfig(repo({ "baton.config.json": '{"languages": ["general"], "routing": {"lean": {}}}' })),
    ).rejects.toThrow(/routing\.lean: "lean" is not a configured language/);
  });

  it("refuses two config files", async () => {
    await expect(loadConfig(repo({ "baton.config.json": "{}", "baton.config.yaml": "{}" }))).rejects.toThrow(
      /both/,
    );
  });
});

describe("the runner when the config names none", () => {
  it("is opencode in a repository that keeps only opencode's tree, Claude Code otherwise, the config's when named", async () => {
    expect((await loadConfig(repo({ ".opencode/agent/x.md": "x\n" }))).runner.type).toBe("opencode");
    expect((await loadConfig(repo({ "opencode.jsonc": "{}\n" }))).runner.type).toBe("opencode");
    expect(
      (await loadConfig(repo({ "opencode.json": "{}\n", ".claude/settings.json": "{}\n" }))).runner.type,
    ).toBe("claude");
    expect((await loadConfig(repo({}))).runner.type).toBe("claude");
    const named = repo({
      ".opencode/agent/x.md": "x\n",
      "baton.config.json": '{"runner": {"type": "codex"}}',
    });
    expect((await loadConfig(named)).runner.type).toBe("codex");
  });
});
