import type { Phase, PlanStyle } from "../plan/index.js";
/**
 * Plan texts in both styles of the format references, for tests, the demo and the benchmarks:
 * style "task" (specs-format 12.1-12.2: bullet header, `- **Dependencies:** Phase 1`, [COMPLETED]) and
 * style "hard-barrier" (hard-barrier 1.2-1.3: `## Metadata`, `dependencies: [1]`, [COMPLETE]).
 */
export interface PlanPhaseSpec {
  id: string;
  name: string;
  dependencies?: string[];
  /** Marker inside the brackets; default NOT STARTED. */
  marker?: string;
  /** Task checkbox labels; default two. */
  tasks?: string[];
  implementer?: NonNullable<Phase["implementer"]>;
  leanFile?: string;
}

export interface PlanSpec {
  style: PlanStyle;
  taskNumber: number;
  title: string;
  status?: string;
  phases: PlanPhaseSpec[];
}

function taskStylePhase(phase: PlanPhaseSpec): string[] {
  const deps = phase.dependencies ?? [];
  return [
    `### Phase ${phase.id}: ${phase.name} [${phase.marker ?? "NOT STARTED"}]`,
    "",
    `- **Dependencies:** ${deps.length === 0 ? "None" : deps.map((d) => `Phase ${d}`).join(", ")}`,
    `- **Goal:** ${phase.name.toLowerCase()}`,
    "",
    "**Tasks:**",
    ...(phase.tasks ?? [`Write ${phase.name.toLowerCase()}`, "Verify it"]).map((t) => `- [ ] ${t}`),
    "",
    "**Timing**: 1 hour",
    "",
    "**Verification**:",
    "- the tests pass",
    "",
    "---",
    "",
  ];
}

function hardBarrierPhase(phase: PlanPhaseSpec): string[] {
  const fields: string[] = [];
  if (phase.implementer) fields.push(`implementer: ${phase.implementer}`);
  if (phase.leanFile) fields.push(`lean_file: ${phase.leanFile}`);
  fields.push(`dependencies: [${(phase.dependencies ?? []).join(", ")}]`);
  return [
    `### Phase ${phase.id}: ${phase.name} [${phase.marker ?? "NOT STARTED"}]`,
    ...fields,
    "",
    `**Objective**: ${phase.name.toLowerCase()}`,
    "**Complexity**: Low",
    "**Tasks**:",
    ...(phase.tasks ?? [`Write ${phase.name.toLowerCase()}`, "Verify it"]).map((t) => `- [ ] ${t}`),
    "**Testing**:",
    "```bash",
    "npm test",
    "```",
    "**Expected Duration**: 1 hour",
    "",
  ];
}

export function generatePlan(spec: PlanSpec): string {
  const status = spec.status ?? "NOT STARTED";
  if (spec.style === "task") {
    return [
      `# Implementation Plan: Task #${spec.taskNumber}`,
      "",
      `- **Task**: ${spec.taskNumber} - ${spec.title}`,
      `- **Status**: [${status}]`,
      "- **Effort**: 4 hours",
      "- **Dependencies**: None",
      "- **Type**: general",
      "",
      "## Overview",
      "",
      `${spec.title}, phase by phase.`,
      "",
      "## Implementation Phases",
      "",
      ...spec.phases.flatMap(taskStylePhase),
      "## Testing & Validation",
      "",
      "- [ ] The whole suite passes",
      "",
    ].join("\n");
  }
  return [
    `# ${spec.title} Implementation Plan`,
    "",
    "## Metadata",
    "- **Date**: 2026-11-22",
    `- **Feature**: ${spec.title}`,
    `- **Status**: [${status}]`,
    "- **Estimated Hours**: 4-6 hours",
    "- **Standards File**: /repo/CLAUDE.md",
    "- **Structure Level**: 0",
    `- **Estimated Phases**: ${spec.phases.length}`,
    "- **Research Reports**: none",
    "",
    "## Overview",
    "",
    `${spec.title}, phase by phase.`,
    "",
    "## Implementation Phases",
    "",
    ...spec.phases.flatMap(hardBarrierPhase),
    "## Testing Strategy",
    "",
    "- [ ] The whole suite passes",
    "",
  ].join("\n");
}

/** A plan of `waves` × `width` phases where every phase of wave k+1 depends on all of wave k. */
export function layeredPlanPhases(waves: number, width: number): PlanPhaseSpec[] {
  const phases: PlanPhaseSpec[] = [];
  for (let w = 0; w < waves; w++) {
    for (let k = 0; k < width; k++) {
      const id = String(w * width + k + 1);
      const dependencies =
        w === 0 ? [] : Array.from({ length: width }, (_, j) => String((w - 1) * width + j + 1));
      phases.push({ id, name: `Step ${w + 1}.${k + 1}`, dependencies });
    }
  }
  return phases;
}

/** A phase agent script (scripted runner) that writes a real summary and reports the phase implemented. */
export function phaseScriptSteps(options: { sleepMs?: number; file?: string } = {}): unknown[] {
  const summary = [
    "# Phase {phase_id} summary: {phase_name}",
    "",
    "Session {session_id}, iteration {iteration}.",
    "",
    "## Changes",
    `- ${options.file ?? "src/phase-{phase_id}.ts"}: implemented what the phase asks for.`,
    "",
    "## Verification",
    "- Unit tests for the phase pass.",
    "",
  ].join("\n");
  return [
    ...(options.sleepMs ? [{ sleepMs: options.sleepMs }] : []),
    {
      write: options.file ?? "src/phase-{phase_id}.ts",
      content: "export const phase = '{phase_id}';\n",
    },
    { write: "{summary_file}", content: summary },
    {
      writeMetadata: {
        status: "implemented",
        summary: "Phase {phase_id} implemented",
        artifacts: [{ type: "summary", path: "{summary_file}" }],
        files_changed: [options.file ?? "src/phase-{phase_id}.ts"],
        completion_data: { completion_summary: "Phase {phase_id} done." },
        metadata: { session_id: "{session_id}", agent_type: "scripted-phase-agent" },
      },
    },
  ];
}

/**
 * A scripted agent for a task's whole way (`baton run`): a real research report, a two-phase plan
 * (phase 2 after phase 1), and phase agents that write code and summaries. `sleepMs` slows each
 * research, `costUsd` is what each agent run reports it spent.
 */
export function wholeWayScript(options: { sleepMs?: number; costUsd?: number } = {}): unknown {
  const spend = options.costUsd ? [{ spend: { costUsd: options.costUsd } }] : [];
  const report = `# Research Report: {task_name}\n\n- **Task**: {task_number}\n\n## Findings\n\n${"- A finding about {task_name}, with the file and line it concerns and why it matters here.\n".repeat(4)}`;
  const plan = generatePlan({
    style: "task",
    taskNumber: 0,
    title: "{task_name}",
    phases: layeredPlanPhases(2, 1),
  })
    .replace(/Task #0\b/g, "Task #{task_number}")
    .replace("- **Task**: 0 -", "- **Task**: {task_number} -");
  const meta = (status: string, type: string, path: string) => ({
    writeMetadata: {
      status,
      summary: `${type} for task {task_number}`,
      artifacts: [{ type, path }],
      metadata: { session_id: "{session_id}", agent_type: "scripted" },
    },
  });
  return {
    operations: {
      research: [
        ...spend,
        ...(options.sleepMs ? [{ sleepMs: options.sleepMs }] : []),
        { write: "{task_folder}/reports/research-001.md", content: report },
        meta("researched", "research", "{task_folder}/reports/research-001.md"),
      ],
      plan: [
        ...spend,
        { write: "{task_folder}/plans/implementation-001.md", content: plan },
        meta("planned", "plan", "{task_folder}/plans/implementation-001.md"),
      ],
    },
    phases: {
      "*": { steps: [...spend, ...phaseScriptSteps({ file: "src/task-{task_number}-phase-{phase_id}.ts" })] },
    },
  };
}
