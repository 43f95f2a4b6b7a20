import { describe, expect, it } from "vitest";
import { FileFormatError } from "./errors.js";
import { isCanonical, parseJsonDocument, renderJsonDocument } from "./json-document.js";

const handFormatted = `{
  "_schema_version": "2.0.0",
  "errors": [
    {
      "id": "err_1",
      "context": {"task": 5, "checkpoint": "COMMIT"},
      "trajectory": {"delegation_path": ["orchestrator", "research"], "failed_at_depth": 1}
    }
  ],
  "aggregations": {"by_type": {}}
}
`;

describe("JSON documents", () => {
  it("refuses a value nested past the limit, naming its line and path, before anything recurses into it", () => {
    const deep = `{\n  "tasks": [{"n": 1}, {"extra": ${"[".repeat(10_000)}${"]".repeat(10_000)}}]\n}\n`;
    let thrown: unknown;
    try {
      parseJsonDocument("specs/state.json", deep);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FileFormatError);
    expect(thrown).toMatchObject({ code: "STORE_UNREADABLE", file: "specs/state.json" });
    expect((thrown as Error).message).toMatch(
      /^specs\/state\.json:2:\d+: a value nested deeper than 64 levels \(at \.tasks\[1\]\.extra\[0\]/,
    );
    // Brackets inside strings are text, and 64 levels are read.
    const quoted = JSON.stringify({
      s: "[".repeat(10_000),
      d: JSON.parse(`${"[".repeat(63)}${"]".repeat(63)}`),
    });
    expect(parseJsonDocument("x.json", quoted).value).toMatchObject({ s: "[".repeat(10_000) });
  });

  it("re-renders an untouched canonical file to identical bytes", async () => {
    const text = `${JSON.stringify({ b: 1, a: [1, 2], c: { z: "é\\u00e9" } }, null, 2)}\n`;
    const doc = parseJsonDocument("x.json", text);
    expect(isCanonical(doc)).toBe(true);
    expect(await renderJsonDocument(doc, doc.value, true)).toBe(text);
  });

  it("keeps four-space indentation and a missing final newline", async () => {
    const text = JSON.stringify({ a: 1, list: [{ k: "v" }] }, null, 4);
    const doc = parseJsonDocument<{ a: number }>("x.json", text);
    doc.value.a = 2;
    expect(await renderJsonDocument(doc, doc.value, isCanonical(doc))).toBe(text.replace('"a": 1', '"a": 2'));
  });

  it("appends to a hand-formatted array without reformatting its neighbours", async () => {
    const doc = parseJsonDocument<{ errors: unknown[] }>("errors.json", handFormatted);
    expect(isCanonical(doc)).toBe(false);
    doc.value.errors.push({ id: "err_2", context: { task: 6 } });
    const out = await renderJsonDocument(doc, doc.value, false);
    expect(out).toContain('"context": {"task": 5, "checkpoint": "COMMIT"},');
    expect(out).toContain(
      '"trajectory": {"delegation_path": ["orchestrator", "research"], "failed_at_depth": 1}',
    );
    expect(JSON.parse(out)).toEqual(doc.value);
    expect(out.startsWith(handFormatted.slice(0, handFormatted.indexOf("    }") + 5))).toBe(true);
  });

  it("edits one nested value in place and leaves every other byte", async () => {
    const doc = parseJsonDocument<{ errors: Array<{ context: { task: number } }> }>(
      "errors.json",
      handFormatted,
    );
    doc.value.errors[0]!.context.task = 7;
    const out = await renderJsonDocument(doc, doc.value, false);
    expect(out).toBe(handFormatted.replace('"task": 5', '"task": 7'));
  });

  it("adds and removes object keys in a hand-formatted file", async () => {
    const doc = parseJsonDocument<Record<string, unknown>>("errors.json", handFormatted);
    delete doc.value["_schema_version"];
    doc.value["_last_updated"] = "2026-01-01T00:00:00Z";
    const out = await renderJsonDocument(doc, doc.value, false);
    expect(JSON.parse(out)).toEqual(doc.value);
    expect(out).toContain('"aggregations": {"by_type": {}}');
    expect(out).not.toContain("_schema_version");
  });

  it("prepends to an array in a hand-formatted file", async () => {
    const doc = parseJsonDocument<{ errors: unknown[] }>("errors.json", handFormatted);
    doc.value.errors.unshift({ id: "err_0" });
    const out = await renderJsonDocument(doc, doc.value, false);
    expect(JSON.parse(out)).toEqual(doc.value);
    expect(out).toContain('"context": {"task": 5, "checkpoint": "COMMIT"}');
  });

  it("names file, line and column of a syntax error", () => {
    const text = '{\n  "a": 1,\n  "b": [1, 2,]\n}\n';
    try {
      parseJsonDocument("specs/state.json", text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FileFormatError);
      expect((error as FileFormatError).code).toBe("STATE_PARSE");
      expect((error as Error).message).toMatch(/^specs\/state\.json:3:14: invalid JSON/);
    }
  });

  it("points at the end of a truncated file", () => {
    expect(() => parseJsonDocument("s.json", '{\n  "a": [1,')).toThrow(/^s\.json:2:/);
  });
});

describe("JSON documents as editors leave them", () => {
  const edit = async (text: string) => {
    const doc = parseJsonDocument<{ tasks: { n: number; s: string }[]; next: number }>("state.json", text);
    const value = structuredClone(doc.value);
    value.tasks[0]!.s = "planned";
    value.tasks.push({ n: 3, s: "new" });
    value.next = 4;
    return renderJsonDocument(doc, value, isCanonical(doc));
  };

  it("writes CRLF on every line of a CRLF file, canonical or hand-formatted", async () => {
    const canonical = `${JSON.stringify({ tasks: [{ n: 1, s: "a" }], next: 2 }, null, 2)}\n`.replace(
      /\n/g,
      "\r\n",
    );
    const hand = '{\r\n  "tasks": [ {"n": 1, "s": "a"} ],\r\n  "next": 2\r\n}\r\n';
    for (const text of [canonical, hand]) {
      const out = await edit(text);
      expect(out.replace(/\r\n/g, ""), JSON.stringify(out)).not.toContain("\n");
      expect(JSON.parse(out)).toEqual({
        tasks: [
          { n: 1, s: "planned" },
          { n: 3, s: "new" },
        ],
        next: 4,
      });
    }
    const untouched = parseJsonDocument("state.json", hand);
    expect(await renderJsonDocument(untouched, untouched.value, isCanonical(untouched))).toBe(hand);
  });

  it("reads a file behind a byte order mark and keeps the mark", async () => {
    const text = `\uFEFF${JSON.stringify({ tasks: [{ n: 1, s: "a" }], next: 2 }, null, 2)}\n`;
    const out = await edit(text);
    expect(out.startsWith("\uFEFF{")).toBe(true);
    expect(JSON.parse(out.slice(1)).next).toBe(4);
  });
});
