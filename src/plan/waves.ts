import type { Phase, PhaseId, WavesResult } from "./plan-types.js";

export type WaveInput = Pick<Phase, "id" | "dependencies">;

/** A cycle through `start`, found by walking dependencies depth-first; the ids in dependency order. */
function findCycle(byId: ReadonlyMap<PhaseId, WaveInput>, order: readonly PhaseId[]): PhaseId[] | null {
  const state = new Map<PhaseId, "visiting" | "done">();
  const stack: PhaseId[] = [];
  const visit = (id: PhaseId): PhaseId[] | null => {
    if (state.get(id) === "done") return null;
    if (state.get(id) === "visiting") return stack.slice(stack.indexOf(id));
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of byId.get(id)?.dependencies ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, "done");
    return null;
  };
  for (const id of order) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * Layers phases into waves: a phase runs in the wave after its latest dependency (no dependencies →
 * wave 1). Completed phases keep their wave; callers skip them. Within a wave, file order. A repeated id
 * counts once, at its first occurrence (the parser reports the duplicate).
 */
export function computeWaves(phases: readonly WaveInput[]): WavesResult {
  const byId = new Map<PhaseId, WaveInput>();
  for (const phase of phases) if (!byId.has(phase.id)) byId.set(phase.id, phase);
  const order = [...byId.keys()];

  for (const phase of byId.values()) {
    const missing = phase.dependencies.find((dep) => !byId.has(dep));
    if (missing !== undefined) return { ok: false, reason: "missing", phase: phase.id, dependsOn: missing };
  }
  const cycle = findCycle(byId, order);
  if (cycle) return { ok: false, reason: "cycle", cycle };

  const wave = new Map<PhaseId, number>();
  const waveOf = (id: PhaseId): number => {
    const known = wave.get(id);
    if (known !== undefined) return known;
    const deps = byId.get(id)?.dependencies ?? [];
    const value = 1 + Math.max(0, ...deps.map(waveOf));
    wave.set(id, value);
    return value;
  };
  const waves: PhaseId[][] = [];
  for (const id of order) {
    const index = waveOf(id) - 1;
    for (let k = waves.length; k <= index; k++) waves.push([]);
    waves[index]?.push(id);
  }
  return { ok: true, waves };
}

/** How a plan's phases were read: their declared dependencies, or — when none declares any — their order. */
export type DependencyReading = "declared" | "in order";

/**
 * A plan that says nothing about dependencies is a sequence, never "all at once": when no runnable phase has
 * a dependencies line (`None` counts as one), each phase depends on the one before it, in the plan's order.
 * Plans of the original system number their phases in order and declare nothing; run in parallel, their
 * agents worked on the same files at once.
 */
export function orderedPhases<P extends WaveInput & Pick<Phase, "dependenciesLine" | "carried">>(
  phases: readonly P[],
): { phases: P[]; reading: DependencyReading } {
  if (phases.some((p) => !p.carried && p.dependenciesLine !== null))
    return { phases: [...phases], reading: "declared" };
  let previous: PhaseId | undefined;
  const ordered = phases.map((phase) => {
    if (phase.carried) return phase;
    const inOrder = { ...phase, dependencies: previous === undefined ? [] : [previous] };
    previous = phase.id;
    return inOrder;
  });
  return { phases: ordered, reading: "in order" };
}

/** The waves of a plan as Baton runs it, with the reading of its dependencies. */
export function planWaves(
  phases: readonly (WaveInput & Pick<Phase, "dependenciesLine" | "carried">)[],
): WavesResult & { reading: DependencyReading } {
  const { phases: ordered, reading } = orderedPhases(phases);
  return { ...computeWaves(ordered), reading };
}
