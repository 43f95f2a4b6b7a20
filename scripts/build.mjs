// Bundles with code splitting: each command's code is its own chunk, loaded only when that command runs.
// The build goes to a folder of its own and then into dist/ file by file, each by a rename: a `baton` linked
// to this clone (npm link) keeps working while it rebuilds, and one that runs meanwhile finds every chunk it
// loads (the chunks of the build before stay an hour).
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

// BATON_BUILD_DIR: another folder than dist/ (a test rebuilds a copy while it runs).
const DIST = process.env.BATON_BUILD_DIR ?? fileURLToPath(new URL("../dist", import.meta.url));
const OUT = `${DIST}.build-${process.pid}`;
rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: {
    "cli/main": "src/cli/main.ts",
    "cli/fast-read": "src/cli/fast-read-main.ts",
    "hooks/main": "src/hooks/hook-main.ts",
    index: "src/index.ts",
    "testing/generate-repo": "src/testing/generate-repo.ts",
    "testing/generate-plan": "src/testing/generate-plan.ts",
    "runners/scripted-agent": "src/runners/scripted-agent.ts",
  },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  packages: "bundle",
  // jsonc-parser's "main" is a UMD build that requires files esbuild cannot see; its ESM build bundles cleanly.
  mainFields: ["module", "main"],
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
  // commander and yaml ship CommonJS, which calls require() for node built-ins.
  banner: {
    js: 'import { createRequire as __batonCreateRequire } from "node:module"; const require = __batonCreateRequire(import.meta.url);',
  },
});

// marked on its own, loaded by shared/markdown-lines.ts only when a document needs it (see there).
await build({
  entryPoints: { "vendor/marked": "node_modules/marked/lib/marked.esm.js" },
  outExtension: { ".js": ".cjs" },
  outdir: OUT,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  logLevel: "warning",
});

// opencode's plugin is not bundled: `baton init --host opencode` copies its source into .opencode/plugin/.
mkdirSync(join(OUT, "hosts/opencode"), { recursive: true });
copyFileSync(
  new URL("../src/hosts/opencode/plugin/baton.js", import.meta.url),
  join(OUT, "hosts/opencode/baton-plugin.js"),
);

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

// Chunks first, entries last: an entry is replaced only once every chunk it imports is in place.
const built = filesUnder(OUT).map((path) => relative(OUT, path));
const order = (path) => (path.startsWith("chunks/") || path.startsWith("vendor/") ? 0 : 1);
for (const path of built.sort((a, b) => order(a) - order(b))) {
  mkdirSync(dirname(join(DIST, path)), { recursive: true });
  renameSync(join(OUT, path), join(DIST, path));
}
rmSync(OUT, { recursive: true, force: true });
const kept = new Set(built);
const hourAgo = Date.now() - 3600_000;
for (const path of filesUnder(DIST).map((p) => relative(DIST, p))) {
  if (kept.has(path)) continue;
  if (!path.startsWith("chunks/") || statSync(join(DIST, path)).mtimeMs < hourAgo) rmSync(join(DIST, path));
}
