import { describe, expect, it } from "vitest";
import type { FileFormatError } from "../shared/index.js";
import { entries, entryStatus, findEntry, parseTodo, renderTodo } from "./todo-document.js";
import {
  buildEntry,
  getEntryDescription,
  insertEntry,
  removeEntry,
  setEntryDescription,
  setEntryField,
  setEntryStatus,
} from "./todo-entry.js";
import { frontmatterNextNumber, setFrontmatterNextNumber } from "./todo-frontmatter.js";
import { checkTodoGuards } from "./todo-guards.js";

const TODO = `---
next_project_number: 984
repository_health:
  overall_score: 92
technical_debt:
  sorry_count: 16
---

# TODO

<!-- hand-written comment -->

## Task Order

1. Do 982 first

## Tasks

### 983. Review decidability results
- **Effort**: TBD
- **Status**: [RESEARCHING]
- **Language**: logic

**Description**: Review the results,
over two lines.

---

### 982. Wire dense completeness
- **Effort**: 3-4 hours
- **Status**: [RESEARCHED]
- **Language**: lean
- **Dependencies:** 981
- **Research**: [research-001.md](specs/982_x/reports/research-001.md)

**Description**: Wire it.

**Resolution Path**:
1. Build FMCS

---

## Notes

Closing paragraph.
`;

describe("TODO.md documents", () => {
  it("round-trips byte for byte", () => {
    expect(renderTodo(parseTodo("TODO.md", TODO))).toBe(TODO);
    const crlf = TODO.replace(/\n/g, "\r\n");
    expect(renderTodo(parseTodo("TODO.md", crlf))).toBe(crlf);
    const noFinalNewline = TODO.slice(0, -1);
    expect(renderTodo(parseTodo("TODO.md", noFinalNewline))).toBe(noFinalNewline);
  });

  it("reads entries, statuses and the frontmatter number", () => {
    const doc = parseTodo("TODO.md", TODO);
    expect(findEntry(doc, 983)?.title).toBe("Review decidability results");
    expect(entryStatus(findEntry(doc, 982)!)).toBe("researched");
    expect(frontmatterNextNumber(doc)).toBe(984);
    expect(getEntryDescription(findEntry(doc, 983)!)).toBe("Review the results,\nover two lines.");
  });

  it("changes only the status line", () => {
    const doc = parseTodo("TODO.md", TODO);
    setEntryStatus(findEntry(doc, 983)!, "researched");
    expect(renderTodo(doc)).toBe(TODO.replace("[RESEARCHING]", "[RESEARCHED]"));
  });

  it("rewrites only the next_project_number frontmatter line", () => {
    const doc = parseTodo("TODO.md", TODO);
    setFrontmatterNextNumber(doc, 990);
    expect(renderTodo(doc)).toBe(TODO.replace("next_project_number: 984", "next_project_number: 990"));
  });

  it("inserts new entries right after ## Tasks, newest first", () => {
    const doc = parseTodo("TODO.md", TODO);
    insertEntry(
      doc,
      buildEntry({
        number: 984,
        title: "New one",
        status: "not_started",
        language: "meta",
        created: "2026-11-22",
      }),
      "top",
    );
    const out = renderTodo(doc);
    expect(out).toContain(
      "## Tasks\n\n### 984. New one\n- **Effort**: TBD\n- **Status**: [NOT STARTED]\n- **Language**: meta\n- **Created**: 2026-11-22\n\n---\n\n### 983.",
    );
    expect(out.replace(/### 984\. New one\n[\s\S]*?---\n\n/, "")).toBe(TODO);
  });

  it("inserts at the bottom of the Tasks section when configured", () => {
    const doc = parseTodo("TODO.md", TODO);
    insertEntry(
      doc,
      buildEntry({
        number: 984,
        title: "Last",
        status: "not_started",
        language: "meta",
        created: "2026-11-22",
      }),
      "bottom",
    );
    expect(renderTodo(doc)).toMatch(/Build FMCS\n\n---\n\n### 984\. Last\n[\s\S]*---\n\n## Notes/);
  });

  it("creates a Tasks section in a TODO without one", () => {
    const doc = parseTodo("TODO.md", "# TODO\n\nSome notes.\n");
    insertEntry(
      doc,
      buildEntry({
        number: 1,
        title: "First",
        status: "not_started",
        language: "general",
        created: "2026-11-22",
      }),
      "top",
    );
    expect(renderTodo(doc)).toMatch(/^# TODO\n\nSome notes\.\n\n## Tasks\n\n### 1\. First\n/);
  });

  it("removes an entry with its separator and keeps the sections around it", () => {
    const doc = parseTodo("TODO.md", TODO);
    removeEntry(doc, 982);
    const out = renderTodo(doc);
    expect(out).not.toContain("### 982");
    expect(out).toContain("1. Do 982 first");
    expect(out).toContain("over two lines.\n\n---\n\n## Notes\n\nClosing paragraph.\n");
  });

  it("replaces a field under either spelling, keeping the line's own, and inserts new ones after Language", () => {
    const doc = parseTodo("TODO.md", TODO);
    const entry = findEntry(doc, 982)!;
    setEntryField(entry, ["Dependencies"], "980");
    setEntryField(entry, ["Priority"], "high");
    const out = renderTodo(doc);
    expect(out).toContain(
      "- **Language**: lean\n- **Priority**: high\n- **Dependencies:** 980\n- **Research**:",
    );
  });

  it("reads and writes field lines in the entry's own style (no bullet, leading space)", () => {
    const odd = TODO.replace(
      "- **Effort**: 3-4 hours\n- **Status**: [RESEARCHED]\n- **Language**: lean",
      " **Effort**: 3-4 hours\n **Status**: [RESEARCHED]\n **Language**: lean",
    );
    const doc = parseTodo("TODO.md", odd);
    const entry = findEntry(doc, 982)!;
    expect(doc.irregular).toEqual([]);
    expect(entryStatus(entry)).toBe("researched");
    setEntryStatus(entry, "planned");
    setEntryField(entry, ["Priority"], "high");
    expect(renderTodo(doc)).toContain(
      " **Effort**: 3-4 hours\n **Status**: [PLANNED]\n **Language**: lean\n **Priority**: high\n",
    );
  });

  it("replaces the whole description paragraph", () => {
    const doc = parseTodo("TODO.md", TODO);
    setEntryDescription(findEntry(doc, 983)!, "Shorter.");
    expect(renderTodo(doc)).toContain("**Description**: Shorter.\n\n---");
  });

  it("reads an entry without a status line, reports it with its line, and guards it", () => {
    const bad = TODO.replace("- **Status**: [RESEARCHED]\n", "");
    const doc = parseTodo("specs/TODO.md", bad);
    expect([...entries(doc)].map((e) => e.number)).toEqual([983, 982]);
    expect(doc.irregular).toMatchObject([{ code: "NO_STATUS_LINE", line: 29, task: 982, fixable: true }]);
    expect(() => checkTodoGuards(doc, new Set())).not.toThrow();
    setEntryStatus(findEntry(doc, 983)!, "planned");
    expect(() => checkTodoGuards(doc, new Set())).not.toThrow();
    setEntryStatus(findEntry(doc, 982)!, "planned");
    expect(() => checkTodoGuards(doc, new Set())).toThrow(/^specs\/TODO\.md:29: task 982 has no status line/);
  });

  it("reads the first of two entries with one number and keeps the second as text", () => {
    const dup = TODO.replace("### 982. Wire", "### 983. Wire");
    const doc = parseTodo("specs/TODO.md", dup);
    expect([...entries(doc)].map((e) => e.number)).toEqual([983]);
    expect(doc.irregular).toMatchObject([
      { code: "ENTRY_TWICE", line: 29, task: 983, message: expect.stringContaining("first is at line 19") },
    ]);
    expect(renderTodo(doc)).toBe(dup);
    removeEntry(doc, 983);
    try {
      checkTodoGuards(doc, new Set());
      expect.unreachable();
    } catch (error) {
      expect((error as FileFormatError).code).toBe("IRREGULAR_ENTRY");
    }
  });

  it("reads an unclosed frontmatter as text and reports it at line 1", () => {
    const doc = parseTodo("TODO.md", "---\nnext_project_number: 3\n# TODO\n");
    expect(doc.frontmatter).toBeNull();
    expect(doc.irregular).toMatchObject([{ code: "FRONTMATTER_OPEN", line: 1 }]);
  });
});

describe("TODO.md segmentation on odd layouts", () => {
  const FRAGMENTS = [
    "",
    "# TODO",
    "## Tasks",
    "## Task Order",
    "### Not an entry heading",
    "#hashtag without space",
    "<!-- comment -->",
    "---",
    "Some paragraph text.",
    "    indented # not a heading",
    "#### Deeper heading",
  ];
  const entry = (n: number) => [
    `### ${n}. Title ${n}`,
    "- **Status**: [PLANNED]",
    "- **Language**: lean",
    "",
    "**Description**: d",
  ];

  it("round-trips generated documents byte for byte, with either line ending", () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < 400; i++) {
      const lines: string[] = [];
      // A first line of "---" opens a frontmatter, so documents without one start with a heading.
      if (random() < 0.5) lines.push("---", "next_project_number: 9", "---");
      else lines.push("# TODO");
      // Entries count only inside a tasks section, or anywhere when the file has no such section.
      let inTasks = false;
      const inSection: number[] = [];
      const all: number[] = [];
      let n = 1;
      for (let k = Math.floor(random() * 12); k > 0; k--) {
        if (random() < 0.35) {
          if (inTasks) inSection.push(n);
          all.push(n);
          lines.push(...entry(n++));
        } else {
          const fragment = FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]!;
          if (/^#{1,2} /.test(fragment)) inTasks = fragment === "## Tasks";
          // A rule right under text would make that text a heading (CommonMark's setext form): real
          // files put a blank line before their separators.
          if (fragment === "---") lines.push("");
          lines.push(fragment);
        }
      }
      const eol = random() < 0.2 ? "\r\n" : "\n";
      const text = lines.join(eol) + (random() < 0.8 ? eol : "");
      const doc = parseTodo("TODO.md", text);
      expect(renderTodo(doc), JSON.stringify(text)).toBe(text);
      const expected = lines.includes("## Tasks") ? inSection : all;
      expect(
        [...entries(doc)].map((e) => e.number),
        JSON.stringify(text),
      ).toEqual(expected);
    }
  });

  it("handles an empty file, a frontmatter-only file and a file that starts with an entry", () => {
    for (const text of [
      "",
      "\n",
      "---\nnext_project_number: 1\n---\n",
      "---\nnext_project_number: 1\n---",
      "### 1. A\n- **Status**: [PLANNED]\n",
    ]) {
      expect(renderTodo(parseTodo("TODO.md", text))).toBe(text);
    }
    expect(entryStatus(findEntry(parseTodo("TODO.md", "### 1. A\n- **Status**: [PLANNED]"), 1)!)).toBe(
      "planned",
    );
  });
});

const newEntry = (number: number) =>
  buildEntry({ number, title: "New", status: "not_started", language: "lean", created: "2026-11-23" });

describe("TODO.md as people keep it", () => {
  const CURATED = [
    "---",
    "next_project_number: 81",
    "---",
    "",
    "# TODO",
    "",
    "## Task Order",
    "",
    "### 0. Strict Temporal Extensions Research (new track, parallel)",
    "",
    "- 12, 14",
    "",
    "### 1. Phase B — Core Wiring",
    "",
    "```",
    "12 → 14 → 81",
    "### 2. inside a code block",
    "```",
    "",
    "## Tasks",
    "",
    "### 81. Wire the core",
    "- **Status**: [NOT STARTED]",
    "- **Language**: lean",
    "",
    "**Description**: Steps:",
    "",
    "```bash",
    "# build first",
    "lake build",
    "```",
    "",
    "---",
    "",
    "### 998. Old work",
    "- **Status**: [PLANNED]",
    "",
    "## Notes",
    "",
    "### 5. A numbered note, not a task",
    "",
  ].join("\n");

  it("reads entries only inside the tasks section; curated sections and code blocks are never tasks", () => {
    const doc = parseTodo("TODO.md", CURATED);
    expect([...entries(doc)].map((e) => e.number)).toEqual([81, 998]);
    expect(renderTodo(doc)).toBe(CURATED);
  });

  it("keeps a heading-like line inside an entry's code block in the entry", () => {
    const doc = parseTodo("TODO.md", CURATED);
    const entry = findEntry(doc, 81)!;
    expect(entry.lines.slice(-6)).toEqual(["# build first", "lake build", "```", "", "---", ""]);
    setEntryField(entry, ["Research"], "[r](x.md)");
    const out = renderTodo(doc);
    expect(out).toContain("# build first\nlake build\n```\n\n---");
    expect(out.indexOf("- **Research**")).toBeLessThan(out.indexOf("```bash"));
    expect(removeEntry(doc, 81)?.lines.join("\n")).toContain("lake build");
    expect(renderTodo(doc)).not.toContain("lake build");
  });

  it("inserts a new task right after ## Tasks, leaving the curated section byte for byte", () => {
    const doc = parseTodo("TODO.md", CURATED);
    insertEntry(doc, newEntry(82), "top");
    const out = renderTodo(doc);
    expect(out.slice(0, CURATED.indexOf("## Tasks"))).toBe(CURATED.slice(0, CURATED.indexOf("## Tasks")));
    expect(out).toMatch(/## Tasks\n\n### 82\. New\n/);
  });

  it("keeps a UTF-8 BOM and reads the frontmatter behind it", () => {
    const text = `\uFEFF${CURATED}`;
    const doc = parseTodo("TODO.md", text);
    expect(frontmatterNextNumber(doc)).toBe(81);
    expect(renderTodo(doc)).toBe(text);
    setFrontmatterNextNumber(doc, 83);
    expect(renderTodo(doc)).toBe(text.replace("next_project_number: 81", "next_project_number: 83"));
  });

  it("writes CRLF on every new line of a CRLF file, and keeps mixed endings it did not touch", () => {
    const crlf = CURATED.replace(/\n/g, "\r\n");
    const doc = parseTodo("TODO.md", crlf);
    setEntryStatus(findEntry(doc, 81)!, "researched");
    insertEntry(doc, newEntry(82), "top");
    setFrontmatterNextNumber(doc, 83);
    const out = renderTodo(doc);
    expect(out.replace(/\r\n/g, "")).not.toContain("\n");
    const mixed = CURATED.replace("## Notes\n", "## Notes\r\n");
    const mixedDoc = parseTodo("TODO.md", mixed);
    setEntryStatus(findEntry(mixedDoc, 81)!, "researched");
    expect(renderTodo(mixedDoc)).toBe(mixed.replace("[NOT STARTED]", "[RESEARCHED]"));
  });
});

describe("TODO.md read as CommonMark", () => {
  const entryText = (n: number, description: string[] = []) =>
    [`### ${n}. Task ${n}`, "- **Status**: [NOT STARTED]", "", ...description, ""].join("\n");

  it("reads the entries after a line that opens with a code span of four backticks", () => {
    const text = `# TODO\n\n## Tasks\n\n${entryText(2, ["```` ```mermaid ```` diagrams in the docs."])}\n${entryText(1)}`;
    expect([...entries(parseTodo("TODO.md", text))].map((e) => e.number)).toEqual([2, 1]);
  });

  it("keeps a heading inside an entry's code block, however indented or long its fence, in the entry", () => {
    const quoted = ["~~~~markdown", "### 9. Not a task", "~~~", "## Not a section", "~~~~"];
    const indented = ["- a step", "", "  ```", "  ### 8. Not a task either", "  ```"];
    const text = `## Tasks\n\n${entryText(2, quoted)}\n${entryText(1, indented)}`;
    const doc = parseTodo("TODO.md", text);
    expect([...entries(doc)].map((e) => e.number)).toEqual([2, 1]);
    expect(renderTodo(doc)).toBe(text);
  });

  it("ends a fence opened in a list item with the item, so the next entry is read", () => {
    const text = `## Tasks\n\n${entryText(2, ["- step", "", "  ```bash", "  make"])}\n${entryText(1)}`;
    expect([...entries(parseTodo("TODO.md", text))].map((e) => e.number)).toEqual([2, 1]);
  });
});
