import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { instructedStoreWrite } from "./instructed-store-write.js";

const run = async (files: Record<string, string>) => instructedStoreWrite.check(modelFromTexts(files));
const lines = async (files: Record<string, string>) =>
  (await run(files)).map((f) => `${f.file}:${f.line} ${f.message.split(":")[0]}`);

const FENCE = "```";

describe("delegation/instructed-store-write", () => {
  it("names each standing instruction to write the store, in memory files and rules, on its line", async () => {
    const claude = [
      "# Project", // 1
      "", // 2
      "## State Synchronization", // 3
      "", // 4
      "Update state.json first (machine state), then TODO.md (user-facing). See the schema.", // 5
      "", // 6
      "## Git Commits", // 7
      "", // 8
      "Format: `task {N}: {action}` with session ID in body.", // 9
      "", // 10
      "- **On failure**: Keep status, log to errors.json, preserve progress", // 11
      "- Update status BEFORE starting work (preflight)", // 12
    ].join("\n");
    const rule = [
      "---", // 1
      "paths: specs/**", // 2
      "---", // 3
      "`/research N`", // 4
      "1. Validate task exists", // 5
      "2. Update status `[RESEARCHING]`", // 6
      "", // 7
      `${FENCE}bash`, // 8
      "jq '.x = 1' specs/state.json > /tmp/s.json && mv /tmp/s.json specs/state.json", // 9
      FENCE, // 10
    ].join("\n");
    expect(await lines({ ".claude/CLAUDE.md": claude, ".claude/rules/state.md": rule })).toEqual([
      ".claude/CLAUDE.md:5 tells the model to write state.json itself",
      ".claude/CLAUDE.md:9 tells the model to make its own commits with the session id",
      ".claude/CLAUDE.md:11 tells the model to write errors.json itself",
      ".claude/CLAUDE.md:12 tells the model to write task status itself",
      ".claude/rules/state.md:6 tells the model to write task status itself",
      ".claude/rules/state.md:9 shows the model a command that writes specs/state.json (`mv` onto it)",
    ]);
  });

  it("reads the repository's root CLAUDE.md and AGENTS.md too", async () => {
    const found = await lines({
      "CLAUDE.md": "Mark the task status as done when you finish.\n",
      "AGENTS.md": "Update TODO.md.\n",
    });
    expect(found).toEqual([
      "AGENTS.md:1 tells the model to write TODO.md itself",
      "CLAUDE.md:1 tells the model to write task status itself",
    ]);
  });

  it("leaves descriptions, prohibitions, reads and Baton's own commands alone", async () => {
    const text = [
      "state.json = machine truth, TODO.md = user visibility",
      "Do not edit specs/state.json by hand.",
      "Never update the status yourself.",
      "Read specs/state.json with jq -r to find the next task.",
      "Use `baton task status 3 planned` to update the status outside a session.",
      "Run git status to see what changed, then update the README.",
      "Status flow: `[NOT STARTED]` -> `[RESEARCHING]` -> `[RESEARCHED]`",
      "",
      `${FENCE}text`,
      "Update state.json by hand",
      FENCE,
    ].join("\n");
    expect(await run({ "CLAUDE.md": text })).toEqual([]);
  });

  it("reads fences and code spans as CommonMark does: a code span of three backticks opens no fence", async () => {
    const text = [
      "Diagrams go in a ```` ```mermaid ```` block.", // 1: a code span, not a fence
      "", // 2
      "Update state.json after each phase.", // 3: still prose, still read
      "", // 4
      "````markdown", // 5: a four-backtick fence holding a three-backtick one
      FENCE, // 6
      "Update state.json here is an example inside the outer fence", // 7
      FENCE, // 8
      "````", // 9
      "", // 10
      "Then update TODO.md.", // 11
    ].join("\n");
    expect(await lines({ "CLAUDE.md": text })).toEqual([
      "CLAUDE.md:3 tells the model to write state.json itself",
      "CLAUDE.md:11 tells the model to write TODO.md itself",
    ]);
  });
});
