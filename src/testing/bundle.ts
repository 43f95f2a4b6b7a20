import { build } from "esbuild";

/**
 * Bundles TypeScript into one runnable .mjs file, for tests that need a separate node process running
 * the current sources (a scripted agent, a parent to signal) without depending on a fresh `dist/`.
 */
export async function bundleForTest(
  source: { entry: string } | { contents: string; resolveDir: string },
  outfile: string,
): Promise<string> {
  await build({
    ...("entry" in source
      ? { entryPoints: [source.entry] }
      : { stdin: { contents: source.contents, resolveDir: source.resolveDir, loader: "ts" as const } }),
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "bundle",
    logLevel: "warning",
  });
  return outfile;
}
