import type { DependencyGroup } from "./dependencies.js";
import type { Phase, PhaseId, PlanProblem } from "./plan-types.js";

/** A phase as read, before its dependency references are checked against the whole plan. */
export interface PhaseDraft {
  phase: Phase;
  groups: DependencyGroup[];
}

const list = (ids: readonly PhaseId[]) => ids.join(", ");

/** Why a group qualified as completed cannot mean phases of this plan; null when it can. */
function historical(phase: Phase, group: DependencyGroup, defined: ReadonlySet<PhaseId>): string | null {
  if (!group.completed) return null;
  const self = group.ids.includes(phase.id);
  const missing = group.ids.filter((id) => !defined.has(id));
  if (!self && missing.length === 0) return null;
  const reasons = [
    ...(self ? [`Phase ${phase.id} is itself`] : []),
    ...(missing.length === 1 ? [`Phase ${missing[0]} is not in this plan`] : []),
    ...(missing.length > 1 ? [`Phases ${list(missing)} are not in this plan`] : []),
  ];
  return reasons.join("; ");
}

/**
 * Settles each phase's dependencies and reports duplicate ids. A group qualified as completed
 * (`Phases 1-5 completed`) that names the phase itself or a phase this plan lacks is read as a whole as a
 * reference to an earlier plan version: dropped with a warning. Judging the group rather than each id
 * matters: in a revised plan whose Phase 1 says `Phases 1-5 completed`, keeping 2 and 3 would make Phase 1
 * depend on its own successors. Unqualified missing or self references stay problems.
 */
export function resolveReferences(
  drafts: readonly PhaseDraft[],
  problems: PlanProblem[],
  warnings: PlanProblem[],
): PhaseId[] {
  const firstLine = new Map<PhaseId, number>();
  const duplicates: PhaseId[] = [];
  for (const { phase } of drafts) {
    const seen = firstLine.get(phase.id);
    if (seen === undefined) {
      firstLine.set(phase.id, phase.line);
      continue;
    }
    if (!duplicates.includes(phase.id)) duplicates.push(phase.id);
    warnings.push({
      line: phase.line,
      message: `Phase ${phase.id} is defined twice (lines ${seen} and ${phase.line}); the first definition counts`,
    });
  }
  const defined = new Set(firstLine.keys());
  for (const { phase, groups } of drafts) {
    const line = phase.dependenciesLine ?? phase.line;
    const ids: PhaseId[] = [];
    for (const group of groups) {
      const why = historical(phase, group, defined);
      if (why !== null) {
        warnings.push({
          line,
          message: `Phase ${phase.id}: "${group.text}" refers to an earlier plan version (${why}); not a dependency`,
        });
        continue;
      }
      for (const dep of group.ids) {
        if (ids.includes(dep)) continue;
        // Kept in the list even when wrong, so that waves of a partial plan name the same fault.
        ids.push(dep);
        if (dep === phase.id) {
          problems.push({ line, message: `Phase ${phase.id} depends on itself` });
        } else if (!defined.has(dep)) {
          problems.push({
            line,
            message: `Phase ${phase.id} depends on Phase ${dep}, which is not in the plan`,
          });
        }
      }
    }
    phase.dependencies = ids;
  }
  return duplicates;
}
