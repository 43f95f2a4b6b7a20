/**
 * The words of `baton --help`: the groups commands are listed under and an example for each command.
 * Data only; main.ts attaches it to the commands it defines.
 */
export const GROUPS = {
  tasks: "Tasks (specs/state.json and specs/TODO.md):",
  operations: "Operations (GATE IN → an agent works → GATE OUT verifies → commit):",
  plans: "Plans:",
  sessions: "Claude Code sessions:",
  maintenance: "Maintenance:",
} as const;

export type HelpGroup = keyof typeof GROUPS;

/** Examples by command path (`task add`, `research`, …), shown after each command's own help. */
export const EXAMPLES: Record<string, string[]> = {
  task: ["baton task add Fix the parser crash -l general", "baton task list --status researched"],
  "task add": [
    'baton task add "Prove the soundness lemma" --language lean --priority high',
    'baton task add Update the README -d "Document the new flags" --depends 12,14',
  ],
  "task list": ["baton task list", "baton task list --status planned,researched --language lean --json"],
  "task show": ["baton task show 12", "baton task show 12 --json"],
  "task edit": [
    'baton task edit 12 --title "Prove the lemma" --priority high',
    "baton task edit 12 --depends none",
  ],
  "task status": [
    'baton task status 12 blocked --reason "waiting for upstream"',
    'baton task status 12 completed --summary "Merged in #41"',
  ],
  "task abandon": ['baton task abandon 12-14 --reason "superseded by 20"'],
  "task recover": ["baton task recover 12", "baton task recover 12, 14-16"],
  "task expand": ['baton task expand 12 -s "Write the parser" -s "Write the tests"'],
  research: ["baton research 12", "baton research 12 the tokenizer edge cases --dry-run"],
  plan: ["baton plan 12", "baton plan show 12"],
  "plan show": ["baton plan show 12", "baton plan show specs/12_parser/plans/implementation-002.md --json"],
  approve: [
    "baton approve 12",
    "baton approve 12 --sha256 9f86d081884c…   # the plan exactly as you read it",
  ],
  reject: ['baton reject 12 --reason "phase 3 deletes the migration tests"'],
  approvals: ["baton approvals", "baton approvals --all --json"],
  implement: ["baton implement 12", "baton implement 12 --concurrency 2 --isolate worktree"],
  revise: ["baton revise 12 split phase 3 into two phases"],
  run: [
    "baton run --status researched --until planned --concurrency 3",
    "baton run --tasks 12,14-16 --max-cost 20",
    "baton run --all-ready",
    "baton run --status researched --until planned --queue postgres://baton@db:5432/baton",
  ],
  worker: ["baton worker --queue postgres://baton@db:5432/baton --repo ~/clones/project"],
  verify: ["baton verify", "baton verify 12 14 --since origin/main --json", "baton verify --trust 3f2a…"],
  key: ["baton key", "baton key --json"],
  "key vouch": ["baton key vouch 9c41d0e2b7a15f3368e0c4d1a2b3c4d5   # a teammate's new machine"],
  "key accept-commit": ["baton key accept-commit 4e1f0c2a9b7d   # a commit GATE IN named, made by a person"],
  "gate-in": ["baton gate-in research 12   # the /research command runs this for you"],
  "gate-out": ["baton gate-out research 12 --session sess_1773703759_f69482"],
  init: ["baton init", "baton init --dry-run", "baton init --uninstall"],
  mcp: [
    "baton mcp   # in an MCP client's configuration: command baton, args [mcp]",
    "baton mcp --allow-approvals   # the client may also approve plans, by their sha256",
  ],
  serve: ["baton serve --port 4891   # for hooks installed with baton init --hooks http"],
  recover: ["baton recover", "baton recover 12 --force"],
  archive: ["baton archive --dry-run", "baton archive"],
  errors: ["baton errors --task 12 --limit 5", "baton errors --checkpoint GATE_OUT --json"],
  doctor: ["baton doctor", "baton doctor --fix"],
  status: ["baton status", "baton status --watch", "baton status --json"],
  ui: ["baton ui   # then open http://127.0.0.1:4891/", "baton ui --port 0"],
  adopt: ["baton adopt   # after editing specs/TODO.md by hand"],
  lint: ["baton lint", "baton lint .claude --format sarif > lint.sarif"],
};

export function examplesText(path: string): string {
  const examples = EXAMPLES[path];
  if (!examples) return "";
  return `\nExample${examples.length > 1 ? "s" : ""}:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`;
}
