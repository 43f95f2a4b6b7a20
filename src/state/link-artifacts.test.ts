import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { tempStore } from "../testing/store-fixture.js";
import { linkArtifacts } from "./link-artifacts.js";
import { mutateStore, readStore } from "./store.js";
import { requireTask } from "./task-lookup.js";
import { addTask } from "./task-ops.js";

let cleanup = () => {};
afterEach(() => cleanup());

async function store(config?: object) {
  const t = await tempStore({ active: 0 });
  cleanup = t.cleanup;
  if (config) {
    writeFileSync(`${t.dir}/baton.config.json`, JSON.stringify(config));
    const { loadConfig } = await import("../config/load-config.js");
    const { storeContext } = await import("./store.js");
    t.ctx = storeContext(await loadConfig(t.dir));
  }
  await mutateStore(t.ctx, { command: "t" }, (tx) => addTask(tx, { title: "Wire it", language: "lean" }));
  const link = (links: Parameters<typeof linkArtifacts>[2]) =>
    mutateStore(t.ctx, { command: "t" }, (tx) => linkArtifacts(tx, requireTask(tx, 1), links));
  const entry = () => readFileSync(t.ctx.paths.todo, "utf8").split("### 1. Wire it\n")[1]!.split("\n\n")[0]!;
  return { t, link, entry };
}

describe("artifact links (v1)", () => {
  it("accumulates research, replaces the plan, and places lines in the original order", async () => {
    const { t, link, entry } = await store();
    await link([{ type: "research", path: "specs/1_wire_it/reports/research-001.md", summary: "First" }]);
    await link([{ type: "report", path: "specs/1_wire_it/reports/research-002.md" }]);
    await link([{ type: "plan", path: "specs/1_wire_it/plans/implementation-001.md", summary: "3 phases" }]);
    await link([{ type: "summary", path: "specs/1_wire_it/summaries/implementation-summary-20260101.md" }]);
    await link([{ type: "plan", path: "specs/1_wire_it/plans/implementation-002.md", summary: "revised" }]);
    expect(entry()).toBe(
      [
        "- **Effort**: TBD",
        "- **Status**: [NOT STARTED]",
        "- **Language**: lean",
        "- **Research**: [research-001.md](specs/1_wire_it/reports/research-001.md), [research-002.md](specs/1_wire_it/reports/research-002.md)",
        "- **Plan**: [implementation-002.md](specs/1_wire_it/plans/implementation-002.md)",
        "- **Summary**: [implementation-summary-20260101.md](specs/1_wire_it/summaries/implementation-summary-20260101.md)",
        `- **Created**: ${readStore(t.ctx).state.tasks[0]!.created!.slice(0, 10)}`,
      ].join("\n"),
    );
    const artifacts = readStore(t.ctx).state.tasks[0]!.artifacts!;
    expect(artifacts.map((a) => (typeof a === "string" ? a : [a.type, a.path.split("/").pop()]))).toEqual([
      ["research", "research-001.md"],
      ["research", "research-002.md"],
      ["summary", "implementation-summary-20260101.md"],
      ["plan", "implementation-002.md"],
    ]);
    expect(artifacts[0]).toMatchObject({ summary: "First", created: expect.stringMatching(/Z$/) });
  });

  it("keeps a note after research links and relinks the same path without duplicating it", async () => {
    const { t, link, entry } = await store();
    await link([{ type: "research", path: "specs/1_wire_it/reports/research-001.md" }]);
    const todo = readFileSync(t.ctx.paths.todo, "utf8");
    writeFileSync(
      t.ctx.paths.todo,
      todo.replace("research-001.md)\n", "research-001.md) (team: 3 teammates)\n"),
    );
    // A person's note, accepted as `baton adopt` does.
    await mutateStore(t.ctx, { command: "baton adopt", adopt: true }, () => {});
    await link([{ type: "research", path: "specs/1_wire_it/reports/research-002.md" }]);
    await link([{ type: "research", path: "specs/1_wire_it/reports/research-002.md", summary: "again" }]);
    expect(entry()).toContain(
      "[research-002.md](specs/1_wire_it/reports/research-002.md) (team: 3 teammates)\n",
    );
    expect(readStore(t.ctx).state.tasks[0]!.artifacts).toHaveLength(2);
  });
});

describe("artifact links (v2)", () => {
  it("writes a list relative to specs/ with summaries", async () => {
    const { link, entry } = await store({ artifactNaming: "v2" });
    await link([
      { type: "research", path: "specs/001_wire_it/reports/01_team-research.md", summary: "Team synthesis" },
    ]);
    await link([{ type: "research", path: "specs/001_wire_it/reports/02_more.md" }]);
    expect(entry()).toContain(
      "- **Research**:\n  - [01_team-research.md](001_wire_it/reports/01_team-research.md) — Team synthesis\n  - [02_more.md](001_wire_it/reports/02_more.md)\n",
    );
  });
});
