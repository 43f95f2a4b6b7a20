import type { Command } from "commander";
// side door: the CLI defines its commands at every start; the approvals face would load the store and plan readers
import { APPROVAL_VERDICTS } from "../../approvals/approval-verdicts.js";
import { described, print, repoOf } from "./io.js";

/** `baton approve`, `baton reject`, `baton approvals`: a person's word on a plan (docs/approvals.md). */
export function defineApprovals(program: Command): void {
  for (const verdict of APPROVAL_VERDICTS) {
    const name = verdict === "approved" ? "approve" : "reject";
    const command = program
      .command(name)
      .description(
        verdict === "approved"
          ? "approve task N's current plan: `implement` may run it while its content stays as approved"
          : "reject task N's current plan, saying why: `revise` makes the next one",
      )
      .argument("<number>", "the task")
      .option("--sha256 <hash>", "the SHA-256 of the plan as you read it: refused if the plan changed since")
      .option("--json", "print JSON");
    if (verdict === "rejected")
      command.requiredOption("--reason <text>", "why, for whoever revises the plan");
    described(
      command.action(async (number: string, opts, cmd: Command) => {
        const { answerPlan, formatAnswer } = await import("../commands/approvals.js");
        const outcome = await answerPlan({
          repo: repoOf(cmd),
          number,
          verdict,
          reason: opts.reason,
          sha256: opts.sha256,
        });
        print(outcome, opts, () => formatAnswer(number, outcome));
        if (!outcome.ok) process.exitCode = 1;
      }),
      "plans",
      name,
    );
  }
  described(
    program
      .command("approvals")
      .description("list the plans that wait for a person's approval")
      .option("--all", "also list approved plans and tasks without a plan")
      .option("--json", "print JSON")
      .action(async (opts, cmd: Command) => {
        const { formatApprovals, listApprovals } = await import("../commands/approvals.js");
        const rows = await listApprovals({ repo: repoOf(cmd), all: opts.all });
        print(rows, opts, () => formatApprovals(rows));
      }),
    "plans",
    "approvals",
  );
}
