import { describe, expect, it } from "vitest";
import { agentTemplates } from "./agent-file.js";

const words = (n: number) => Array.from({ length: n }, (_, k) => `word${k}`).join(" ");

describe("an agent's Markdown templates, read as CommonMark", () => {
  it("takes a template behind a longer fence whole, inner code blocks included", () => {
    const systemPrompt = [
      "Write the report like this:",
      "",
      "````markdown",
      "# Research Report",
      "",
      words(40),
      "",
      "```bash",
      "lake build",
      "```",
      "",
      "## Findings",
      "````",
      "",
      "Then stop.",
    ].join("\n");
    const [template] = agentTemplates({ name: "r", systemPrompt, source: "r.md" });
    expect(template?.text).toContain("lake build");
    expect(template?.text).toContain("## Findings");
  });

  it("finds no template in a line that only shows a fence in a code span", () => {
    const systemPrompt = `\`\`\`\` \`\`\`markdown \`\`\`\` starts a template.\n\n${words(40)}\n\n\`\`\`\n`;
    expect(agentTemplates({ name: "r", systemPrompt, source: "r.md" })).toEqual([]);
  });
});
