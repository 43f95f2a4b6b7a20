/**
 * Programs that read a script named as their argument (`bash x.sh`, `node x.js`, `source x`): the one list both
 * the hook-script finder and the executable-bit rule use, so they never disagree about what runs a script.
 */
export const INTERPRETERS: ReadonlySet<string> = new Set([
  "bash",
  "sh",
  "zsh",
  "dash",
  "node",
  "python",
  "python3",
  "bun",
  "deno",
  "ruby",
  "perl",
  "tsx",
  "npx",
  "source",
  ".",
]);
