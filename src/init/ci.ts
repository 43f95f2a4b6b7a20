import { packageVersion } from "../shared/package.js";
import type { TemplateFile } from "./templates.js";

/** `baton init --ci`: the CI services whose workflow init writes. */
export const CI_PROVIDERS = ["github"] as const;
export type CiProvider = (typeof CI_PROVIDERS)[number];

/**
 * `baton init --ci github`: a GitHub Actions workflow that runs `baton verify` on pull requests and on
 * pushes to the default branch, with the whole history (verify walks it). Baton is installed from the
 * repository variable BATON_PACKAGE when set (a git URL, a tarball, a registry name), else by version.
 */
export function ciFiles(ci: CiProvider | undefined): TemplateFile[] {
  if (ci !== "github") return [];
  const content = `# Written by \`baton init --ci github\`: every task that reached a done status must have the
# Baton commit and evidence that moved it. A completion made by hand fails this job (a phantom).
name: Baton verify
on:
  pull_request:
  push:
    branches: [main, master]
jobs:
  verify:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: Install Baton
        run: npm install --global "\${{ vars.BATON_PACKAGE || 'baton@${packageVersion()}' }}"
      - name: Verify completions against their evidence
        run: baton verify
`;
  return [{ path: ".github/workflows/baton-verify.yml", content }];
}
