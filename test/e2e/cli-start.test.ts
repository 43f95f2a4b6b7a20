import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { oneTaskRepo, tempDir } from "./helpers.js";

/**
 * Every CLI start pays for the code it loads, and the everyday task commands start most often (the suite alone
 * starts the CLI over a thousand times). A heavy library reached by an import nobody meant (the YAML parser came
 * in through a formatter once) costs each of those starts; this names the command and the library that came in.
 */
// jsonc-parser is not among them: store writes edit state.json with it, keeping every other byte.
const HEAVY = ["yaml", "marked", "pg", "pg-boss"] as const;

/** The dist files a command loads, as a module-resolve hook registered with --import saw them. */
function loadedFiles(dir: string, args: string[]): string[] {
  const hooks = tempDir("baton-cli-start-");
  const log = join(hooks, "loaded.txt");
  writeFileSync(
    join(hooks, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith("file:")) appendFileSync(${JSON.stringify(log)}, resolved.url + "\\n");
  return resolved;
}
`,
  );
  writeFileSync(
    join(hooks, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(hooks, "hooks.mjs")).href)});\n`,
  );
  writeFileSync(log, "");
  const result = spawnSync(process.execPath, ["--import", join(hooks, "register.mjs"), BATON_BIN, ...args], {
    cwd: dir,
    encoding: "utf8",
  });
  expect(result.status, `baton ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return [...new Set(readFileSync(log, "utf8").trim().split("\n"))].map((url) => new URL(url).pathname);
}

/** The heavy libraries bundled into the files loaded: esbuild marks each module it inlines with its path. */
function heavyLibraries(files: string[]): string[] {
  const found = new Set<string>();
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    for (const name of HEAVY) if (source.includes(`// node_modules/${name}/`)) found.add(name);
  }
  return [...found].sort();
}

describe("what a CLI start loads", () => {
  it("the task commands load neither the YAML parser, nor the Markdown renderer, nor PostgreSQL's client", () => {
    const dir = oneTaskRepo();
    const commands = [
      ["task", "add", "Another task"],
      ["task", "show", "1"],
      ["task", "edit", "1", "--title", "Study the lexer again"],
      ["task", "status", "1", "blocked", "--reason", "waiting"],
    ];
    const loaded = Object.fromEntries(
      commands.map((args) => [args.slice(0, 2).join(" "), heavyLibraries(loadedFiles(dir, args))]),
    );
    expect(loaded).toEqual(Object.fromEntries(commands.map((args) => [args.slice(0, 2).join(" "), []])));
  });

  it("finds a heavy library where one is needed: lint reads frontmatter with the YAML parser", () => {
    // The check above must be able to fail: a command known to need YAML shows it.
    expect(heavyLibraries(loadedFiles(oneTaskRepo(), ["lint"]))).toContain("yaml");
  });
});
