import { readCommits, sealedBy, sealKeys, sessionOf } from "../../evidence/index.js";
import { readHeadRef, runGit } from "../../shared/git.js";
import type { GitBaseline } from "../../state/index.js";

const git = (root: string, args: string[]) => runGit(root, args, { env: { GIT_OPTIONAL_LOCKS: "0" } });

/** Refs a run of Baton's own moves meanwhile: the branch HEAD is on (Baton's commits), its phase branches. */
function movesWithBaton(ref: string, headRef: string | null): boolean {
  return ref === headRef || ref.startsWith("refs/heads/baton/") || ref.startsWith("refs/remotes/");
}

/**
 * The index's entries that differ from HEAD, as `<blob> <path>`. Baton commits through an index of its
 * own and leaves the shared one matching what it committed, so an entry that appears here was staged by
 * someone else.
 */
async function readStaged(root: string): Promise<string[]> {
  const diff = await git(root, ["diff-index", "--cached", "-z", "--no-renames", "HEAD"]);
  if (!diff.ok) return [];
  const fields = diff.stdout.split("\0");
  const staged: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const blob = fields[i]!.split(" ")[3] ?? "";
    staged.push(`${blob} ${fields[i + 1]}`);
  }
  return staged.sort();
}

/** Every ref and the commit it names, the branch HEAD is on and what is staged; null outside git. */
export async function readRefs(
  root: string,
): Promise<{ refs: Record<string, string>; head: string | null; staged: string[] } | null> {
  const listed = await git(root, ["for-each-ref", "--format=%(refname) %(objectname)"]);
  if (!listed.ok) return null;
  const refs: Record<string, string> = {};
  for (const line of listed.stdout.split("\n")) {
    const [name, sha] = line.split(" ");
    if (name && sha) refs[name] = sha;
  }
  // A git that cannot read HEAD here leaves it as no branch: GATE OUT then refuses rather than skip the check.
  const head = await readHeadRef(root);
  return { refs, head: head.ok ? head.ref : null, staged: await readStaged(root) };
}

/**
 * What happened to the repository's history while the agent ran, beyond what Baton itself does: the
 * baseline commit amended or reset away, a commit without a Baton Session trailer on top of it, a ref
 * (tag, other branch) made, moved or deleted. Empty when history only moved by Baton's own commits.
 */
export async function historyChanges(root: string, baseline: GitBaseline): Promise<string[]> {
  if (baseline.commit === null || baseline.refs === undefined) return [];
  const problems: string[] = [];
  const contains = await git(root, ["merge-base", "--is-ancestor", baseline.commit, "HEAD"]);
  if (!contains.ok) {
    problems.push(
      `HEAD no longer contains the baseline commit ${baseline.commit.slice(0, 12)} (amended or reset)`,
    );
  } else {
    problems.push(...(await foreignCommits(root, `${baseline.commit}..HEAD`)));
  }
  const now = await readRefs(root);
  if (now) {
    problems.push(...(await refChanges(root, baseline.refs, baseline, now)));
    problems.push(...(await stagedChanges(root, baseline, now.staged)));
  }
  return problems;
}

/**
 * The commits of a range that Baton did not make, described: a commit is Baton's by its seal (its key's
 * signature over the tree, parents and message), never by a `Session:` trailer, which anyone can type.
 */
async function foreignCommits(root: string, range: string): Promise<string[]> {
  const commits = (await readCommits(root, [range])) ?? [];
  if (commits.length === 0) return [];
  const keys = await sealKeys(root);
  return commits
    .filter((commit) => !sealedBy(commit, keys))
    .map((commit) => {
      const subject = commit.message.split("\n")[0];
      const claim = sessionOf(commit.message);
      return claim
        ? `commit ${commit.sha.slice(0, 12)} ("${subject}") carries the Session trailer ${claim} but no Baton seal: Baton did not make it`
        : `commit ${commit.sha.slice(0, 12)} ("${subject}") is not Baton's`;
    });
}

/**
 * Refs made, moved or deleted beside Baton's own since the baseline. A branch that only moved forward by
 * Baton's commits (another run's, seen from a phase's worktree, whose HEAD is a branch of its own) is Baton's.
 */
async function refChanges(
  root: string,
  refs: Record<string, string>,
  baseline: GitBaseline,
  now: NonNullable<Awaited<ReturnType<typeof readRefs>>>,
): Promise<string[]> {
  const problems: string[] = [];
  const names = new Set([...Object.keys(refs), ...Object.keys(now.refs)]);
  for (const name of [...names].sort()) {
    if (movesWithBaton(name, baseline.headRef ?? now.head)) continue;
    const before = refs[name];
    const after = now.refs[name];
    if (before === after) continue;
    if (before !== undefined && after !== undefined && (await movedByBaton(root, before, after))) continue;
    problems.push(
      before === undefined
        ? `ref ${name} was created`
        : after === undefined
          ? `ref ${name} was deleted`
          : `ref ${name} moved`,
    );
  }
  return problems;
}

async function movedByBaton(root: string, before: string, after: string): Promise<boolean> {
  const forward = await git(root, ["merge-base", "--is-ancestor", before, after]);
  return forward.ok && (await foreignCommits(root, `${before}..${after}`)).length === 0;
}

/**
 * Entries staged since the baseline by someone other than Baton. Baton commits through an index of its
 * own and then brings the shared index up to HEAD; in that moment the shared index still holds a path as
 * it was before one of Baton's commits since the baseline — such an entry is lagging, not staged.
 */
async function stagedChanges(
  root: string,
  baseline: GitBaseline,
  staged: readonly string[],
): Promise<string[]> {
  if (baseline.staged === undefined || baseline.commit === null) return [];
  const before = new Set(baseline.staged);
  const added = staged.filter((e) => !before.has(e));
  if (added.length === 0) return [];
  const pathOf = (entry: string) => entry.slice(entry.indexOf(" ") + 1);
  const raw = await git(root, [
    "log",
    "--format=",
    "--raw",
    "--no-abbrev",
    "--no-renames",
    `${baseline.commit}..HEAD`,
    "--",
    ...added.map((e) => `:(literal)${pathOf(e)}`),
  ]);
  const earlier = new Set<string>();
  for (const line of raw.stdout.split("\n")) {
    const match = /^:\d+ \d+ ([0-9a-f]+) [0-9a-f]+ \w+\t(.*)$/.exec(line);
    if (match) earlier.add(`${match[1]} ${match[2]}`);
  }
  return added
    .filter((entry) => !earlier.has(entry))
    .map((entry) => `the index changed: ${pathOf(entry)} was staged`);
}
