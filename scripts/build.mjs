// Bundles with code splitting: each command's code is its own chunk, loaded only when that command runs.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { build } from "esbuild";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
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
  outdir: "dist",
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
  outdir: "dist",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  logLevel: "warning",
});

// opencode's plugin is not bundled: `baton init --host opencode` copies its source into .opencode/plugin/.
mkdirSync(new URL("../dist/hosts/opencode", import.meta.url), { recursive: true });
copyFileSync(
  new URL("../src/hosts/opencode/plugin/baton.js", import.meta.url),
  new URL("../dist/hosts/opencode/baton-plugin.js", import.meta.url),
);
