import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, ok, oneTaskRepo, RESEARCH_REPORT } from "./helpers.js";

/** The paths an agent must write, named by Baton (docs/runners.md): the artifact's as much as the metadata's. */
describe("the artifact path variable", () => {
  it("a scripted agent writes {artifact_path}, as docs/runners.md shows, and GATE OUT accepts it", () => {
    const dir = oneTaskRepo();
    const agent = join(dir, ".git", "agent.json");
    writeFileSync(
      agent,
      JSON.stringify({
        steps: [
          { write: "{artifact_path}", content: RESEARCH_REPORT },
          {
            writeMetadata: {
              status: "researched",
              summary: "Found the cause",
              artifacts: [{ type: "research", path: "{artifact_path}" }],
              metadata: { session_id: "{session_id}", agent_type: "scripted" },
            },
          },
        ],
      }),
    );
    ok(dir, ["research", "1", "--script", agent]);
    expect(readFileSync(join(dir, "specs/1_study_the_lexer/reports/research-001.md"), "utf8")).toBe(
      RESEARCH_REPORT,
    );
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("task 1: complete research");
  });

  it("a command agent finds $BATON_ARTIFACT_PATH and $BATON_METADATA_FILE in its environment", () => {
    const dir = oneTaskRepo();
    writeFileSync(join(dir, ".git", "report.md"), RESEARCH_REPORT);
    writeFileSync(
      join(dir, ".git", "agent.sh"),
      [
        'mkdir -p "$(dirname "$BATON_ARTIFACT_PATH")"',
        `cp "${join(dir, ".git", "report.md")}" "$BATON_ARTIFACT_PATH"`,
        'printf \'{"status":"researched","summary":"done","artifacts":[{"type":"research","path":"%s"}],"metadata":{"session_id":"%s","agent_type":"sh"}}\' "$BATON_ARTIFACT_PATH" "$BATON_SESSION_ID" > "$BATON_METADATA_FILE"',
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "baton.config.json"),
      JSON.stringify({ runner: { type: "command", command: "sh", args: [join(dir, ".git", "agent.sh")] } }),
    );
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "config"]);
    ok(dir, ["research", "1"]);
    expect(existsSync(join(dir, "specs/1_study_the_lexer/reports/research-001.md"))).toBe(true);
  });
});
