import { type Command, Option } from "commander";
import { Stopwatch } from "../../shared/time.js";
import { collect, described, print, repoOf } from "./io.js";

export function defineMaintenance(program: Command): void {
  defineRecover(program);
  defineVerify(program);
  defineKey(program);
  defineArchive(program);
  defineErrors(program);
  defineStatus(program);
  defineDoctor(program);
  defineAdopt(program);
  defineLint(program);
}

function defineRecover(program: Command): void {
  described(
    program
      .command("recover")
      .description(
        "resolve runs that died (kill -9, crash): record a result that verifies, else roll the task back",
      )
      .argument("[number]", "only this task (default: every task with an open checkpoint)")
      .option(
        "-f, --force",
        "also give up in-session checkpoints (opened by gate-in), which no process tells about",
      )
      .option("--json", "print JSON")
      .action(async (number: string | undefined, opts, cmd: Command) => {
        const { recover } = await import("../commands/operate.js");
        const { formatRecovery } = await import("../progress.js");
        const actions = await recover({ number, force: opts.force, repo: repoOf(cmd) });
        print(actions, opts, () => formatRecovery(actions));
        if (actions.some((a) => a.action === "commit_pending")) process.exitCode = 1;
      }),
    "maintenance",
    "recover",
  );
}

function defineVerify(program: Command): void {
  described(
    program
      .command("verify")
      .description(
        "audit history: every task that reached a done status has the Baton commit and evidence that moved it",
      )
      .argument("[numbers...]", "only these tasks (12, 14-16)")
      .option("--since <rev>", "check completions after this revision (default: since Baton was adopted)")
      .option(
        "--trust <fingerprints...>",
        "the evidence keys to trust as roots (default: the keys committed at adoption; BATON_TRUSTED_KEYS)",
      )
      .option(
        "--rerun",
        "run each verified completion's recorded checks again on a clean checkout and compare the counts",
      )
      .option("--all", "list each completion from before Baton was adopted (by default one line counts them)")
      .option("--json", "print JSON")
      .action(async (numbers: string[], opts, cmd: Command) => {
        const { formatVerify, verify, verifyFailed } = await import("../commands/verify.js");
        const progress = historyProgress(process.stderr);
        const trust: string[] =
          opts.trust ?? process.env["BATON_TRUSTED_KEYS"]?.split(/[\s,]+/).filter(Boolean) ?? [];
        const report = await verify({
          repo: repoOf(cmd),
          numbers,
          since: opts.since,
          trust,
          rerun: opts.rerun,
          onProgress: progress.update,
        });
        progress.done();
        print(report, opts, () => formatVerify(report, { all: opts.all ?? false }));
        if (verifyFailed(report)) process.exitCode = 1;
      }),
    "maintenance",
    "verify",
  );
}

function defineKey(program: Command): void {
  const key = program
    .command("key")
    .description("this account's evidence signing key: its fingerprint, and whether the repository trusts it")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      const { formatKey, showKey } = await import("../commands/key.js");
      const report = await showKey({ repo: repoOf(cmd) });
      print(report, opts, () => formatKey(report));
    });
  described(key, "maintenance", "key");
  const vouch = key
    .command("vouch")
    .description("vouch for another machine's committed evidence key, so `baton verify` trusts what it signs")
    .argument(
      "<fingerprint>",
      "the key's fingerprint (`baton key` on its machine, or `baton verify` lists it)",
    )
    .option("--json", "print JSON")
    .action(async (fingerprint: string, opts, cmd: Command) => {
      const { vouchKey } = await import("../commands/key.js");
      const result = await vouchKey({ repo: repoOf(cmd), fingerprint });
      print(result, opts, () => `Wrote ${result.vouch}; commit it so every clone trusts key ${fingerprint}.`);
    });
  described(vouch, null, "key vouch");
  const accept = key
    .command("accept-commit")
    .description(
      "say, as a person outside any agent session, that commits carrying Baton's Session trailer without its seal were made on purpose",
    )
    .argument("<commit...>", "the commits GATE IN or `baton verify` named")
    .option("--json", "print JSON")
    .action(async (commits: string[], opts, cmd: Command) => {
      const { acceptCommits } = await import("../commands/key.js");
      const result = await acceptCommits({
        repo: repoOf(cmd),
        commits,
        insideSession: Boolean(process.env["CLAUDE_CODE_SESSION_ID"]),
      });
      print(
        result,
        opts,
        () => `Accepted ${result.accepted.join(", ")} in the sealed commit ${result.commit}.`,
      );
    });
  described(accept, null, "key accept-commit");
}

function defineArchive(program: Command): void {
  described(
    program
      .command("archive")
      .description(
        "move completed and abandoned tasks and their folders into specs/archive/, record orphan folders",
      )
      .option("-n, --dry-run", "show what would happen, write nothing")
      .option("--json", "print JSON")
      .action(async (opts, cmd: Command) => {
        const { archive } = await import("../commands/task.js");
        const { formatArchive } = await import("../format.js");
        const result = await archive({ ...opts, repo: repoOf(cmd) });
        print(result, opts, () => formatArchive(result));
      }),
    "maintenance",
    "archive",
  );
}

function defineErrors(program: Command): void {
  described(
    program
      .command("errors")
      .description("list specs/errors.json, newest first")
      .option("--type <type>", "only this error type, e.g. artifact_too_small")
      .option("--task <number>", "only this task")
      .option("--session <id>", "only this session")
      .option("--severity <level>", "critical | high | medium | low")
      .addOption(new Option("--fix-status <status>", "unfixed | investigating | in_progress | fixed"))
      .option("--checkpoint <name>", "GATE_IN | DELEGATE | GATE_OUT | COMMIT")
      .option("--since <iso>", "only errors at or after this timestamp")
      .option("--limit <n>", "at most this many")
      .option("--json", "print JSON")
      .action(async (opts, cmd: Command) => {
        const { errors } = await import("../commands/list-errors.js");
        const { formatErrors } = await import("../format.js");
        const result = await errors({ ...opts, repo: repoOf(cmd) });
        print(result, opts, () => formatErrors(result));
      }),
    "maintenance",
    "errors",
  );
}

function defineStatus(program: Command): void {
  described(
    program
      .command("status")
      .description("what runs now, the last results and refusals, and what it all cost")
      .option("--watch", "keep it up to date: redrawn in place in a terminal, plain lines otherwise")
      .option("--interval <seconds>", "how often --watch looks again (default 1)")
      .option("--recent <n>", "how many results and refusals to show (default 10)")
      .option("--json", "print JSON")
      .action(async (opts, cmd: Command) => {
        const { status } = await import("../commands/status.js");
        const { formatStatus } = await import("../status-format.js");
        const read = () => status({ ...opts, repo: repoOf(cmd) });
        if (!opts.watch) {
          const view = await read();
          const { formatConventions } = await import("../conventions-format.js");
          print(view, opts, () => [formatStatus(view), ...formatConventions(view.conventions)].join("\n"));
          return;
        }
        const { watchStatus } = await import("../status-watch.js");
        await watchStatus(read, formatStatus, { json: opts.json ?? false, interval: opts.interval });
      }),
    "maintenance",
    "status",
  );
}

function defineDoctor(program: Command): void {
  described(
    program
      .command("doctor")
      .description("check the store's invariants and report each problem with its fix")
      .option("--fix", "repair what is safe to repair, after listing it")
      .option("--json", "print JSON")
      .action(async (opts, cmd: Command) => {
        const { doctor } = await import("../commands/doctor.js");
        const { formatDoctor } = await import("../format.js");
        const result = await doctor({ ...opts, repo: repoOf(cmd) });
        print(result, opts, () => formatDoctor(result, opts.fix ?? false));
        if (!result.healthy) process.exitCode = 1;
      }),
    "maintenance",
    "doctor",
  );
}

function defineAdopt(program: Command): void {
  described(
    program
      .command("adopt")
      .description(
        "keep edits you made to state.json, TODO.md or the archive outside Baton (Baton seals them)",
      )
      .option("--json", "print JSON")
      .action(async (opts, cmd: Command) => {
        const { adopt } = await import("../commands/doctor.js");
        const result = await adopt({
          repo: repoOf(cmd),
          insideSession: Boolean(process.env["CLAUDE_CODE_SESSION_ID"]),
        });
        print(result, opts, () =>
          result.adopted.length === 0
            ? "Nothing to adopt: the store is as Baton last wrote it."
            : `Adopted: ${result.adopted.join(", ")}`,
        );
      }),
    "maintenance",
    "adopt",
  );
}

function defineLint(program: Command): void {
  described(
    program
      .command("lint")
      .description("check .claude/ (or .opencode/) agents, commands, skills, hooks and specs/ for mistakes")
      .argument("[dir]", "the repository root, or its .claude or .opencode folder (default: this repository)")
      .option(
        "--disable <rules>",
        "skip rules by id or prefix (repeat or comma-separate), e.g. git/",
        collect,
      )
      .option("--only <rules>", "run only these rules (ids or prefixes)", collect)
      .option("--format <format>", "human | json | sarif (default: human)")
      .option("--json", "same as --format json")
      .option("--max-warnings <n>", "exit 1 when there are more than n warnings")
      .option("--list-rules", "list the rules and exit")
      .action(async (dir: string | undefined, opts, cmd: Command) => {
        const { lintCommand } = await import("../commands/lint.js");
        const { output, exitCode } = await lintCommand({ ...opts, dir, repo: repoOf(cmd) });
        process.stdout.write(`${output}\n`);
        process.exitCode = exitCode;
      }),
    "maintenance",
    "lint",
  );
}

/** On a terminal, once reading history has taken a second, one redrawn line says how far it got. */
function historyProgress(stream: NodeJS.WriteStream): {
  update: (done: number, total: number) => void;
  done: () => void;
} {
  const started = new Stopwatch();
  let shown = false;
  return {
    update(done, total) {
      if (!stream.isTTY || started.elapsedMs() < 1000) return;
      shown = true;
      stream.write(`\rbaton verify: reading history, ${done} of ${total} commits`);
    },
    done() {
      if (shown) stream.write("\r\x1b[K");
    },
  };
}
