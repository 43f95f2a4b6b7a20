import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

interface ImportEdge {
  from: string;
  to: string;
  line: number;
  startLine: number;
  typeOnly: boolean;
  sideDoor: string | undefined;
}
interface ArchitectureCheck {
  architectureProblems(imports?: ImportEdge[]): string[];
}

const root = new URL("..", import.meta.url).pathname;
// A path in a variable: the checker is a plain script of the repository, not a typed module of src/.
const checkerPath = `${root}scripts/check-architecture.mjs`;
const { architectureProblems } = (await import(checkerPath)) as ArchitectureCheck;
const structurePath = `${root}scripts/check-structure.mjs`;
const { fileProblems, treeProblems } = (await import(structurePath)) as {
  fileProblems(file: string, text: string): string[];
  treeProblems(files: { file: string; text: string }[]): string[];
};

/** `f({ a: 1, b: 2, … })` with `count` fields. */
const callWith = (count: number, callee = "f") =>
  `${callee}({ ${Array.from({ length: count }, (_, i) => `k${i}: ${i}`).join(", ")} });\n`;

const edge = (from: string, to: string, more: Partial<ImportEdge> = {}): ImportEdge => ({
  from,
  to,
  line: 3,
  startLine: 3,
  typeOnly: false,
  sideDoor: undefined,
  ...more,
});

describe("the architecture check of npm run lint", () => {
  it("finds every import of src/ in line with docs/architecture.md", () => {
    expect(architectureProblems()).toEqual([]);
  });

  it("is part of npm run lint", () => {
    const scripts = JSON.parse(readFileSync(`${root}package.json`, "utf8")).scripts as Record<string, string>;
    expect(scripts.lint).toContain("scripts/check-architecture.mjs");
  });

  it("refuses an arrow running back up inside engine/, and a checkpoint folder entered past its index.ts", () => {
    const problems = architectureProblems([
      edge("src/engine/gate-out/check-x.ts", "src/engine/drive/drive-context.ts", { typeOnly: true }),
      edge("src/engine/delegate/runner-delegation.ts", "src/engine/plan-run/run-plan.ts"),
    ]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^src\/engine\/gate-out\/check-x\.ts:3: engine\/gate-out imports engine\/drive, which is not on a floor below it/,
      ),
      expect.stringMatching(
        /^src\/engine\/gate-out\/check-x\.ts:3: imports src\/engine\/drive\/drive-context\.ts, inside engine\/drive/,
      ),
      expect.stringMatching(
        /src\/engine\/plan-run\/run-plan\.ts, inside engine\/plan-run; import it from engine\/plan-run\/index\.ts/,
      ),
    ]);
  });

  it("asks a new engine folder for its floor", () => {
    const problems = architectureProblems([edge("src/engine/audit/x.ts", "src/engine/run/index.ts")]);
    expect(problems).toEqual([expect.stringMatching(/engine\/audit has no floor in ENGINE_FLOORS/)]);
  });

  it("refuses a domain import the table does not allow, and one past the index.ts without a reason", () => {
    const problems = architectureProblems([
      edge("src/engine/delegate/x.ts", "src/hooks/index.ts"),
      edge("src/hosts/x.ts", "src/state/paths.ts"),
      edge("src/hosts/y.ts", "src/state/paths.ts", { sideDoor: "measured: start-up" }),
      edge("src/hosts/z.ts", "src/shared/git.ts"),
    ]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^src\/engine\/delegate\/x\.ts:3: engine\/ imports hooks\/, which DOMAIN_IMPORTS does not allow/,
      ),
      expect.stringMatching(/^src\/hosts\/x\.ts:3: imports src\/state\/paths\.ts past src\/state\/index\.ts/),
    ]);
  });

  it("refuses files importing each other in a loop", () => {
    const problems = architectureProblems([
      edge("src/state/a.ts", "src/state/b.ts", { typeOnly: true }),
      edge("src/state/b.ts", "src/state/a.ts"),
    ]);
    expect(problems).toEqual(["files import each other in a loop: src/state/a.ts ↔ src/state/b.ts"]);
  });

  it("refuses a call filled with 15 or more fields, a constructor's too, but not a zod schema's shape", () => {
    expect(fileProblems("src/a.ts", callWith(14))).toEqual([]);
    expect(fileProblems("src/a.ts", callWith(15))).toEqual([
      expect.stringMatching(/^src\/a\.ts:1: a call filled with 15 fields \(at most 14\)/),
    ]);
    expect(fileProblems("src/b.ts", `const x = 1;\nnew Thing(${callWith(20, "").slice(1, -3)});\n`)).toEqual([
      expect.stringMatching(/^src\/b\.ts:2: a call filled with 20 fields/),
    ]);
    expect(fileProblems("src/c.ts", callWith(22, "z.strictObject"))).toEqual([]);
  });

  it("reads a side door's reason from the code: one import, or a whole file", () => {
    const files = execFileSync("git", ["grep", "-l", "-E", "^// side doors?: ", "--", "src"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(files).toContain("src/hooks/bind.ts");
  });
});

const vocabularyPath = `${root}scripts/check-vocabulary.mjs`;
const { vocabularyProblems, wordLists } = (await import(vocabularyPath)) as {
  vocabularyProblems(files: { file: string; text: string }[]): string[];
  wordLists(file: string, text: string): { key: string; where: string }[];
};

describe("the vocabulary check of npm run lint: each list of words written once", () => {
  it("is part of npm run lint: the structure check reports a copy among the files it reads", () => {
    const copy = [
      { file: "src/run/mode.ts", text: 'export type RunMode = "headless" | "session";\n' },
      { file: "src/status/view.ts", text: 'const mode: "session" | "headless" = "session";\n' },
    ];
    expect(treeProblems(copy)).toEqual([
      expect.stringMatching(/the words "headless", "session" are listed again/),
    ]);
  });

  it("reads a list in every form it takes: a union, a zod enum, a const list, a constant's list, a Set", () => {
    const forms = [
      'type Mode = "session" | "headless";',
      'const Mode = z.enum(["headless", "session"]);',
      'export const MODES = ["headless", "session"] as const;',
      'const MODES = ["session", "headless"];',
      'const MODES = new Set(["headless", "session"]);',
    ];
    for (const text of forms)
      expect(wordLists("src/a.ts", text).map((l) => l.key)).toEqual(["headless session"]);
  });

  it("refuses a second copy in another file, and lets keys picked from a type pass", () => {
    const problems = vocabularyProblems([
      { file: "src/run/mode.ts", text: 'export type RunMode = "headless" | "session";\n' },
      { file: "src/status/view.ts", text: '\n\nconst mode: "session" | "headless" = "session";\n' },
      {
        file: "src/config/pick.ts",
        text: 'type P = Pick<Config, "root" | "source">;\ntype Q = Omit<Config, "root" | "source">;\n',
      },
    ]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^src\/run\/mode\.ts:1: the words "headless", "session" are listed again at src\/status\/view\.ts:3; name the list once/,
      ),
    ]);
  });
});
