import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GOOD_RESEARCH, git, ok, okJson, repo, runBaton } from "./helpers.js";

/**
 * A commit is Baton's by its seal, never by the `Session:` trailer anyone can type: a commit that passes
 * itself off as a Baton result is refused at GATE IN and fails `baton verify`; Baton's own work rebased or
 * squashed (its session's evidence in the tree) passes and is listed; a person can accept a commit.
 */
function researchedRepo(): { dir: string; agent: string } {
  const dir = repo();
  for (const title of ["Study the lexer", "Study the parser", "Study the printer", "Study the checker"])
    ok(dir, ["task", "add", title, "-l", "general"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "tasks"]);
  const agent = join(dir, ".git", "agent.json");
  writeFileSync(agent, JSON.stringify({ steps: GOOD_RESEARCH }));
  ok(dir, ["research", "1", "--script", agent]);
  return { dir, agent };
}

/** A commit of a work file that types Baton's trailer, as a model with Bash (or a person) can. */
function typedTrailerCommit(dir: string, session: string): string {
  writeFileSync(join(dir, "src.txt"), "changed outside Baton\n");
  git(dir, ["add", "src.txt"]);
  git(dir, ["commit", "-qm", "task 2: complete research", "-m", `Session: ${session}`]);
  return git(dir, ["rev-parse", "HEAD"]).trim();
}

const stateText = (dir: string) => readFileSync(join(dir, "specs/state.json"), "utf8");

describe("sealed commits", () => {
  it("seals Baton's commits, and verify passes its own history", () => {
    const { dir } = researchedRepo();
    expect(git(dir, ["log", "-1", "--format=%B"])).toMatch(
      /^task 1: complete research\n\nSession: sess_\d{10}_[0-9a-f]{6}\nBaton-Seal: [0-9a-f]{32} \S+\n/,
    );
    const report = okJson(dir, ["verify", "--json"]);
    expect(report.unsealed).toEqual([]);
  });

  it("refuses GATE IN on a commit passed off as Baton's, fails verify, and takes a person's acceptance", () => {
    const { dir, agent } = researchedRepo();
    const forged = typedTrailerCommit(dir, "sess_1799999999_abcdef");
    const before = stateText(dir);
    const refused = runBaton(dir, ["research", "2", "--script", agent]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain(
      `${forged.slice(0, 12)} ("task 2: complete research", Session: sess_1799999999_abcdef) carries Baton's Session trailer for a session Baton never ran here`,
    );
    expect(stateText(dir)).toBe(before);

    const verify = runBaton(dir, ["verify"]);
    expect(verify.status).toBe(1);
    expect(verify.stdout).toContain(`FORGED  commit ${forged.slice(0, 10)} "task 2: complete research"`);
    expect(verify.stdout).toContain("1 commit(s) passed off as Baton's");

    // Only a person, outside every session: inside one the acceptance is refused.
    const inSession = runBaton(dir, ["key", "accept-commit", forged], { CLAUDE_CODE_SESSION_ID: "s-1" });
    expect(inSession.status).not.toBe(0);
    expect(inSession.stderr).toContain("only a person outside every agent session can accept a commit");
    expect(runBaton(dir, ["key", "accept-commit", "HEAD~1"]).stderr).toContain("nothing to accept");
    ok(dir, ["key", "accept-commit", forged]);
    expect(git(dir, ["log", "-1", "--format=%B"])).toContain(`Accepts: ${forged}`);
    const accepted = ok(dir, ["verify"]).stdout;
    expect(accepted).toContain(`accepted commit ${forged.slice(0, 10)}`);
    ok(dir, ["research", "2", "--script", agent]);
  });

  it("lets Baton's own work rebased or squashed pass, and lists it apart", () => {
    const { dir, agent } = researchedRepo();
    ok(dir, ["research", "2", "--script", agent]);
    const session = okJson(dir, ["verify", "2", "--json"]).verified[0].session as string;
    // Onto a new parent (as a rebase or a pull request's squash merge does): the trailer stays, the seal breaks.
    const original = git(dir, ["rev-parse", "HEAD"]).trim();
    git(dir, ["reset", "-q", "--hard", "HEAD~1"]);
    git(dir, ["commit", "-q", "--allow-empty", "-m", "a person's commit"]);
    git(dir, ["cherry-pick", original]);
    const report = okJson(dir, ["verify", "--json"]);
    expect(report.unsealed).toEqual([
      expect.objectContaining({ session, knownSession: true, acceptedBy: null }),
    ]);
    expect(report.phantoms).toEqual([]);
    expect(ok(dir, ["verify"]).stdout).toContain("Baton's own session, rebased, cherry-picked or squashed");
    ok(dir, ["research", "3", "--script", agent]);
    // A real session's trailer typed again is not a made-up one: GATE IN passes, verify lists it.
    typedTrailerCommit(dir, session);
    ok(dir, ["research", "4", "--script", agent]);
  });
});
