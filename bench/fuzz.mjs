// Fuzzed input, as people, tools and hostile models produce it, into every file and stream Baton reads:
// state.json, TODO.md, baton.config.yaml, an agent's frontmatter, and a hook's stdin. Each input is written into
// a real repository, one CLI command reads it, and the file is put back. Counted: "unexpected failure" (a crash
// Baton did not name), a death by signal, an exit code outside Baton's, and a hook reply that is not JSON.
// Usage: node bench/fuzz.mjs [--inputs N] [--seed S]
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, machine, numberFlag, table, tempDir } from "./common.mjs";

const INPUTS = numberFlag("inputs", 2000);
let seed = numberFlag("seed", 41);
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (n) => Math.floor(random() * n);

const NASTY = [
  "",
  "\u0000",
  "\u001b[31mred\u001b[0m",
  "\u001b]0;title\u0007",
  "../../../etc",
  "/abs/path",
  "a\nb",
  "\r\n",
  "\uFEFF",
  "x".repeat(100_000),
  "😀",
  "\uD800",
  "$(touch /tmp/pwned)",
  "`id`",
  "'\"",
  "<script>alert(1)</script>",
  "-1",
  "1e309",
  "NaN",
  "null",
];
const VALUES = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53 + 1,
  "",
  [],
  {},
  [1, [2, [3]]],
  { a: { b: { c: {} } } },
  ...NASTY,
];

const deep = (n, open = "[", close = "]") => `${open.repeat(n)}${close.repeat(n)}`;

/** One change to a JSON value: a field replaced, removed or added, anywhere in it. */
function mutateValue(value, depth = 0) {
  if (value === null || typeof value !== "object" || depth > 4 || random() < 0.3) return pick(VALUES);
  const copy = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  const roll = random();
  if (keys.length > 0 && roll < 0.6) {
    const key = pick(keys);
    copy[key] = mutateValue(copy[key], depth + 1);
  } else if (keys.length > 0 && roll < 0.8) delete copy[pick(keys)];
  else copy[Array.isArray(copy) ? copy.length : pick(NASTY).slice(0, 20) || "k"] = pick(VALUES);
  return copy;
}

/** Text damaged as editors, merges and disks damage it. */
function mutateText(text) {
  const roll = random();
  if (roll < 0.15) return text.slice(0, int(text.length));
  if (roll < 0.3) {
    const at = int(text.length);
    return text.slice(0, at) + pick(NASTY) + text.slice(at);
  }
  if (roll < 0.4) return text.replace(/\n/g, "\r\n");
  if (roll < 0.5) return `\uFEFF${text}`;
  if (roll < 0.6) {
    const lines = text.split("\n");
    lines.splice(int(lines.length), 0, ...text.split("\n").slice(int(lines.length)));
    return lines.join("\n");
  }
  if (roll < 0.7)
    return Buffer.from(text)
      .map((b) => (random() < 0.01 ? int(256) : b))
      .toString("latin1");
  if (roll < 0.8) return text.replace(/[{[]/, (m) => `${m}${deep(5000 + int(20_000))},`);
  if (roll < 0.9)
    return `<<<<<<< HEAD\n${text}\n=======\n${text.slice(0, int(text.length))}\n>>>>>>> other\n`;
  return text.split("\n").reverse().join("\n");
}

function stateInput(text) {
  if (random() < 0.6) {
    try {
      return `${JSON.stringify(mutateValue(JSON.parse(text)), null, 2)}\n`;
    } catch {
      // a damaged file stays damaged text
    }
  }
  return mutateText(text);
}

const YAML = [
  () =>
    `a: &a [x, x, x, x, x, x, x, x, x]\n${["b", "c", "d", "e", "f", "g"]
      .map(
        (n, i, all) =>
          `${n}: &${n} [${Array(9)
            .fill(`*${i === 0 ? "a" : all[i - 1]}`)
            .join(", ")}]`,
      )
      .join("\n")}\n`,
  () => `x: ${deep(2000 + int(8000))}\n`,
  () => `runner: ${pick(NASTY).slice(0, 200)}\n`,
  () =>
    `languages: [${pick(NASTY).slice(0, 50)}]\nspecsDir: ${pick(["../outside", "/tmp", "specs", "", "."])}\n`,
  () => `routing:\n  general:\n    research: {agent: ${JSON.stringify(pick(NASTY).slice(0, 80))}}\n`,
  () => `budgets: {perRunUsd: ${pick(["-1", "1e309", "NaN", "'x'", "[]"])}}\n`,
  () => `timeouts: {research: ${pick(["-5", "0", "1e12", "'10m'", "{}"])}}\n`,
  () => "\t- a\n  : b\n: : :\n",
  () => `${"k: v\n".repeat(int(1000))}k: dup\n`,
];

function hookInput(repo) {
  const base = {
    session_id: pick(["s", "", 7, null]),
    hook_event_name: pick(["PreToolUse", "PostToolUse", "Stop", "", 3]),
    cwd: pick([repo, join(repo, "src"), "/", "/tmp", "", "relative", 42, `${repo}/../..`]),
    tool_name: pick(["Write", "Edit", "Bash", "Agent", "Task", "", null]),
    tool_input: pick([
      { file_path: join(repo, "specs/state.json"), content: "{}" },
      { file_path: pick(NASTY) },
      { command: pick(["rm -rf specs", "git commit -m x", pick(NASTY), "cat ~/.config/baton/keys/x"]) },
      { subagent_type: pick(NASTY), prompt: pick(NASTY) },
      JSON.parse(deep(200, "[", "]")),
      null,
      "string",
    ]),
    transcript_path: pick(["/nonexistent", join(repo, "specs/state.json"), "", null]),
  };
  const value = random() < 0.7 ? mutateValue(base) : base;
  const text = JSON.stringify(value) ?? "null";
  return random() < 0.2
    ? mutateText(text)
    : random() < 0.05
      ? text.replace("{", `{"x": ${deep(20_000)},`)
      : text;
}

function setUp() {
  const { dir, cleanup } = tempDir("fuzz");
  const git = (...args) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "fuzz@baton");
  git("config", "user.name", "fuzz");
  const baton = (...args) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8" });
  baton("init");
  baton("task", "add", "Study the lexer");
  baton("task", "add", "Write the guide", "--depends", "1");
  writeFileSync(join(dir, "baton.config.yaml"), "languages: [general, lean]\n");
  git("add", "-A");
  git("commit", "-qm", "fuzz base");
  return { dir, cleanup, git };
}

const TARGETS = [
  {
    name: "specs/state.json",
    file: "specs/state.json",
    input: stateInput,
    commands: [
      ["task", "list"],
      ["status"],
      ["task", "show", "1"],
      ["doctor"],
      ["task", "add", "Third"],
      ["lint"],
    ],
  },
  {
    name: "specs/TODO.md",
    file: "specs/TODO.md",
    input: mutateText,
    commands: [
      ["task", "list"],
      ["doctor"],
      ["task", "status", "1", "blocked", "--reason", "fuzz"],
      ["lint"],
    ],
  },
  {
    name: "baton.config.yaml",
    file: "baton.config.yaml",
    input: () => pick(YAML)(),
    commands: [["status"], ["task", "list"], ["research", "1", "--dry-run"]],
  },
  {
    name: "an agent's frontmatter",
    file: ".claude/agents/baton-researcher.md",
    input: mutateText,
    commands: [["lint"], ["research", "1", "--dry-run"]],
  },
  {
    name: "hook stdin",
    file: null,
    input: null,
    commands: [
      ["hook", "pre-tool-use"],
      ["hook", "post-tool-use"],
      ["hook", "stop"],
      ["hook", "subagent-start"],
    ],
  },
];

function judge(result, hook) {
  const out = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.signal) return `killed by ${result.signal}`;
  if (/unexpected failure|Maximum call stack|RangeError|TypeError|at .*\(.*\.js:\d+/.test(out))
    return out.slice(0, 300);
  if (![0, 1, 2, 3].includes(result.status ?? -1)) return `exit ${result.status}`;
  if (hook) {
    try {
      JSON.parse(result.stdout || "{}");
    } catch {
      return `hook reply is not JSON: ${result.stdout.slice(0, 100)}`;
    }
  }
  return null;
}

const repo = setUp();
const originals = new Map(
  TARGETS.filter((t) => t.file).map((t) => [t.file, readFileSync(join(repo.dir, t.file), "utf8")]),
);
const counts = new Map(TARGETS.map((t) => [t.name, { inputs: 0, unexpected: 0, examples: [] }]));
try {
  for (let i = 0; i < INPUTS; i++) {
    const target = TARGETS[i % TARGETS.length];
    const command = pick(target.commands);
    const hook = target.file === null;
    let input;
    if (hook) input = hookInput(repo.dir);
    else {
      input = target.input(originals.get(target.file));
      writeFileSync(join(repo.dir, target.file), input);
    }
    const result = spawnSync(process.execPath, [BIN, ...command], {
      cwd: repo.dir,
      input: hook ? input : undefined,
      encoding: "utf8",
      timeout: 60_000,
      maxBuffer: 64 << 20,
      env: { ...process.env, CLAUDE_PROJECT_DIR: repo.dir },
    });
    const problem = judge(result, hook);
    const count = counts.get(target.name);
    count.inputs++;
    if (problem) {
      count.unexpected++;
      if (count.examples.length < 3)
        count.examples.push(`baton ${command.join(" ")}: ${problem.split("\n")[0]}`);
    }
    // Back to the committed repository for the next input.
    repo.git("checkout", "-q", "--", ".");
    repo.git("clean", "-qfdx", "-e", ".baton/keys", "-e", ".baton/init.json");
    for (const [file, text] of originals) writeFileSync(join(repo.dir, file), text);
  }
} finally {
  repo.cleanup();
}
console.log(`# Fuzzed input: ${INPUTS} inputs into every file and stream Baton reads`);
console.log(`machine: ${machine()}\n`);
console.log(
  table([
    ["target", "inputs", "unexpected failures"],
    ...[...counts].map(([name, c]) => [name, String(c.inputs), String(c.unexpected)]),
  ]),
);
for (const [name, c] of counts) for (const example of c.examples) console.log(`  ${name}: ${example}`);
const total = [...counts.values()].reduce((n, c) => n + c.unexpected, 0);
console.log(`\n${total} unexpected failure(s) in ${INPUTS} inputs (target: 0)`);
process.exitCode = total === 0 ? 0 : 1;
