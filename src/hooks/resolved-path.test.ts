import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askPreToolUse, decisionOf, type HookRepo, hookRepo, reasonOf } from "../testing/hook-fixture.js";

let repo: HookRepo;
beforeEach(() => {
  repo = hookRepo();
});
afterEach(() => repo.cleanup());

const pre = (tool: string, input: Record<string, unknown>, extra = {}) =>
  askPreToolUse(repo.dir, tool, input, extra);
const SUB = { agent_id: "a1b2", agent_type: "researcher" };
const FILE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"] as const;
const written = (tool: string, path: string) =>
  tool === "NotebookEdit" ? { notebook_path: path, new_source: "x" } : { file_path: path, content: "{}" };

/**
 * The file a tool writes is the one the OS resolves, not the path as typed: a link in an unprotected folder
 * that points at the hosts' settings, git's folder or the store is refused for every file tool, for the main
 * thread and sub-agents alike, and so is a hard link to a protected file.
 */
describe("decisions on the resolved path, for every file tool", () => {
  it.each(FILE_TOOLS)(
    "%s through a folder link to .claude, to .git, and to specs is refused",
    async (tool) => {
      mkdirSync(join(repo.dir, ".claude"), { recursive: true });
      mkdirSync(join(repo.dir, ".git"), { recursive: true });
      symlinkSync("../.claude", join(repo.dir, "specs/cl"));
      symlinkSync("../.git", join(repo.dir, "specs/g"));
      symlinkSync(".", join(repo.dir, "specs/here"));
      for (const [path, kind] of [
        ["specs/cl/settings.local.json", "settings"],
        ["specs/g/config", "git"],
        ["specs/here/state.json", "store"],
      ] as const) {
        for (const who of [{}, SUB]) {
          const reply = await pre(tool, written(tool, join(repo.dir, path)), who);
          expect(decisionOf(reply), `${tool} ${path}`).toBe("deny");
          expect(reasonOf(reply)).toContain(`${path} (which is `);
          if (kind === "settings") expect(reasonOf(reply)).toContain("hosts' settings");
        }
      }
    },
  );

  it("a dangling link whose target would be created, /proc/self/root and a hard link are refused", async () => {
    symlinkSync(join(repo.dir, ".claude/settings.local.json"), join(repo.dir, "notes.json"));
    expect(decisionOf(await pre("Write", { file_path: join(repo.dir, "notes.json"), content: "{}" }))).toBe(
      "deny",
    );
    const viaProc = `/proc/self/root${join(repo.dir, "baton.config.json")}`;
    expect(decisionOf(await pre("Write", { file_path: viaProc, content: "{}" }))).toBe("deny");
    linkSync(join(repo.dir, "specs/state.json"), join(repo.dir, "src-copy.json"));
    const hard = await pre("Edit", {
      file_path: join(repo.dir, "src-copy.json"),
      old_string: "a",
      new_string: "b",
    });
    expect(decisionOf(hard)).toBe("deny");
    expect(reasonOf(hard)).toContain("specs/state.json");
  });

  it("the hosts' settings and git's folder by their own names too; other files and links stay free", async () => {
    for (const path of [
      ".claude/settings.json",
      ".claude/settings.local.json",
      ".git/config",
      ".git/hooks/pre-commit",
    ])
      expect(decisionOf(await pre("Write", { file_path: join(repo.dir, path), content: "x" })), path).toBe(
        "deny",
      );
    mkdirSync(join(repo.dir, "src"), { recursive: true });
    symlinkSync("src", join(repo.dir, "code"));
    writeFileSync(join(repo.dir, "src/a.ts"), "a\n");
    expect(await pre("Write", { file_path: join(repo.dir, "code/a.ts"), content: "b" })).toEqual({});
    expect(await pre("Write", { file_path: join(repo.dir, ".claude/agents/mine.md"), content: "b" })).toEqual(
      {},
    );
  });
});
