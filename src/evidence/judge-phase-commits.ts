import { ARTIFACT_DIRS } from "../shared/baton-paths.js";
import { runGit } from "../shared/git.js";
import { sessionOf } from "./commit-seal.js";
import { EVIDENCE_DIR, type Evidence } from "./evidence-record.js";
import {
  addedEvidence,
  commitChanges,
  isStoreRecord,
  signatureProblem,
  workListProblems,
} from "./judge-completion.js";
import type { KeyTrust } from "./key-trust.js";

export interface PhaseCommitProblem {
  commit: string;
  subject: string;
  reasons: string[];
}

const PHASE_SUBJECT = /^task (\d+) phase (\S+):/;

/**
 * Each phase commit (`task N phase K: …`) of the history since adoption, held to its phase's evidence as a
 * completion is held to its own: the commit changes exactly the work its evidence lists, with those blobs,
 * besides Baton's record (the store, the task's plan and evidence, the evidence keys) and the phase's
 * artifacts. Phase evidence without a work list (written before Baton listed it) is not judged.
 */
export async function judgePhaseCommits(
  root: string,
  prefix: string,
  trust: KeyTrust,
  after: ReadonlySet<string>,
  tasks?: readonly number[],
): Promise<{ checked: number; problems: PhaseCommitProblem[] }> {
  const log = await runGit(root, [
    "log",
    "-E",
    "--grep=^task [0-9]+ phase ",
    "--format=%x1e%H%x00%s%x00%B",
    "HEAD",
  ]);
  const result = { checked: 0, problems: [] as PhaseCommitProblem[] };
  for (const entry of log.ok ? log.stdout.split("\x1e") : []) {
    const [commit = "", subject = "", message = ""] = entry.split("\0");
    const phase = PHASE_SUBJECT.exec(subject);
    const session = sessionOf(message);
    if (!phase || !session || !after.has(commit)) continue;
    const task = Number(phase[1]);
    if (tasks && !tasks.includes(task)) continue;
    const found = await addedEvidence(root, prefix, commit, { session, task, phase: phase[2]! });
    if (!found?.evidence.work) continue;
    result.checked++;
    const reasons = await phaseScope(root, prefix, commit, found);
    const signature = signatureProblem(found.evidence, trust);
    if (signature) reasons.unshift(signature);
    if (reasons.length > 0) result.problems.push({ commit, subject, reasons });
  }
  return result;
}

async function phaseScope(
  root: string,
  prefix: string,
  commit: string,
  found: { evidence: Evidence; path: string },
): Promise<string[]> {
  const changes = await commitChanges(root, commit);
  const folder = found.path.slice(0, found.path.indexOf(`/${EVIDENCE_DIR}/`));
  const artifacts = new Set(found.evidence.artifacts.map((a) => a.path));
  const record = (p: string) =>
    isStoreRecord(prefix, p) ||
    p.startsWith(`${folder}/${ARTIFACT_DIRS.plan}/`) ||
    p.startsWith(`${folder}/${EVIDENCE_DIR}/`) ||
    artifacts.has(p);
  return workListProblems(changes, found.evidence.work ?? {}, record, "its phase evidence");
}
