import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parsePlan, planWaves } from "../../plan/index.js";
import { ARTIFACT_DIRS } from "../../shared/baton-paths.js";
import { markdownLines } from "../../shared/markdown-lines.js";
import {
  type Gate,
  type GateOutContext,
  type GateResult,
  refuse,
  type VerifiedArtifact,
} from "./gate-types.js";

/**
 * The substance of research and plans, beyond their size: a plan must parse into phases that can run in
 * waves, a research report must have the sections its agent was told to write, and no artifact may be a
 * near copy of an earlier artifact of the task or of the agent's own template.
 */
export const checkSubstance: Gate = (ctx) => {
  for (const artifact of ctx.artifacts ?? []) {
    const text = readText(ctx.repoRoot, artifact);
    if (text === null) continue;
    const verdict = isPlan(ctx, artifact)
      ? checkPlan(ctx, artifact, text)
      : isReport(ctx, artifact)
        ? checkReport(ctx, artifact, text)
        : ok;
    if (!verdict.ok) return verdict;
    const copied = nearCopy(ctx, artifact, text);
    if (!copied.ok) return copied;
  }
  return ok;
};

const ok: GateResult = { ok: true };

function readText(root: string, artifact: VerifiedArtifact): string | null {
  try {
    return readFileSync(join(root, artifact.path), "utf8");
  } catch {
    return null;
  }
}

const isPlan = (ctx: GateOutContext, a: VerifiedArtifact) =>
  (ctx.operation === "plan" || ctx.operation === "revise") &&
  (a.type === "plan" || a.path.includes(`/${ARTIFACT_DIRS.plan}/`)) &&
  a.path.endsWith(".md");

const isReport = (ctx: GateOutContext, a: VerifiedArtifact) =>
  ctx.operation === "research" &&
  (a.type === "research" || a.path.includes(`/${ARTIFACT_DIRS.research}/`)) &&
  a.path.endsWith(".md");

function checkPlan(ctx: GateOutContext, artifact: VerifiedArtifact, text: string): GateResult {
  const parsed = parsePlan(join(ctx.repoRoot, artifact.path), text);
  if (!parsed.ok) {
    const problems = parsed.problems.map((p) => `${artifact.path}:${p.line}: ${p.message}`).join("; ");
    return refuse(ctx, "PLAN_UNPARSABLE", `the plan does not parse: ${problems}`);
  }
  const phases = parsed.plan.phases.filter((p) => !p.carried);
  if (phases.length === 0) {
    return refuse(
      ctx,
      "PLAN_UNPARSABLE",
      `${artifact.path} has no phase ("### Phase 1: Name [NOT STARTED]")`,
    );
  }
  const waves = planWaves(phases);
  if (!waves.ok) {
    const why =
      waves.reason === "cycle"
        ? `its phases depend on each other in a cycle (${waves.cycle.join(" → ")})`
        : `phase ${waves.phase} depends on phase ${waves.dependsOn}, which the plan does not have`;
    return refuse(ctx, "PLAN_UNPARSABLE", `${artifact.path}: ${why}, so no wave can run`);
  }
  return ok;
}

const sectionName = (text: string) => text.replace(/[*_`]/g, "").trim().replace(/:$/, "").toLowerCase();

/**
 * The report's sections, read as CommonMark: its own headings (`## Findings`, a setext heading) and a line
 * that is only bold text (`**Findings**`) — never a line inside a code block, HTML or a quote, where a
 * heading is an example, not a section.
 */
function headings(text: string): Set<string> {
  const read = markdownLines(text);
  const found = new Set(read.headings.map((h) => sectionName(h.text)));
  text.split(/\r?\n/).forEach((line, i) => {
    const bold = read.roles[i] === "text" ? /^ {0,3}\*\*(.+?)\*\*:?\s*$/.exec(line) : null;
    if (bold) found.add(sectionName(bold[1] ?? ""));
  });
  return found;
}

function checkReport(ctx: GateOutContext, artifact: VerifiedArtifact, text: string): GateResult {
  const required = ctx.expected.researchSections ?? [];
  if (required.length === 0) return ok;
  const present = headings(text);
  const missing = required.filter((s) => !present.has(s.toLowerCase()));
  if (missing.length === 0) return ok;
  return refuse(
    ctx,
    "REPORT_SECTIONS_MISSING",
    `${artifact.path} lacks the section(s) ${missing.map((s) => `"${s}"`).join(", ")} its agent was told to write (research.sections)`,
  );
}

/** Word 5-grams of the text with Markdown and whitespace normalised away. */
function shingles(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .replace(/[#*_`>|[\]()-]+/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "");
  const out = new Set<string>();
  for (let i = 0; i + 5 <= words.length; i++) out.add(words.slice(i, i + 5).join(" "));
  return out;
}

/** Jaccard similarity of two shingle sets. */
function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

export const NEAR_COPY = 0.9;

function nearCopy(ctx: GateOutContext, artifact: VerifiedArtifact, text: string): GateResult {
  const mine = shingles(text);
  if (mine.size < 10) return ok;
  // A revision is a revised copy of the plan by definition; it is judged against templates only.
  const earlierOnes = ctx.operation === "revise" ? [] : (ctx.expected.earlierArtifacts ?? []);
  for (const earlier of earlierOnes) {
    if (earlier === artifact.path) continue;
    let other: string;
    try {
      other = readFileSync(join(ctx.repoRoot, earlier), "utf8");
    } catch {
      continue;
    }
    const score = similarity(mine, shingles(other));
    if (score >= NEAR_COPY) {
      return refuse(
        ctx,
        "ARTIFACT_NEAR_COPY",
        `${artifact.path} is a near copy (${Math.round(score * 100)}% the same) of the task's earlier ${earlier}: a stub, not new work`,
      );
    }
  }
  for (const template of ctx.expected.templates ?? []) {
    const score = similarity(mine, shingles(template.text));
    if (score >= NEAR_COPY) {
      return refuse(
        ctx,
        "ARTIFACT_NEAR_COPY",
        `${artifact.path} is a near copy (${Math.round(score * 100)}% the same) of the template in ${relative(ctx.repoRoot, template.source)}: it was filled in, not written`,
      );
    }
  }
  return ok;
}
