import * as z from "zod/mini";

/**
 * The file an agent writes to report its result (`.return-meta.json`, format reference section 10).
 * Agents never report `completed`: in the original system that word made models stop early, and
 * completing a task is Baton's decision at GATE OUT, not the agent's.
 */
export const AGENT_STATUSES = [
  "in_progress",
  "researched",
  "planned",
  "implemented",
  "partial",
  "failed",
  "blocked",
] as const;

export const ReturnArtifact = z.looseObject({
  type: z.string().check(z.minLength(1)),
  path: z.string().check(z.minLength(1)),
  summary: z.optional(z.string()),
});
export type ReturnArtifact = z.infer<typeof ReturnArtifact>;

export const ReturnMetadata = z.looseObject({
  status: z.string(),
  summary: z.string().check(z.minLength(1)),
  artifacts: z.array(ReturnArtifact),
  metadata: z.looseObject({
    session_id: z.string(),
    agent_type: z.string().check(z.minLength(1)),
    delegation_depth: z.optional(z.number()),
    delegation_path: z.optional(z.array(z.string())),
  }),
  next_steps: z.optional(z.string()),
  partial_progress: z.optional(
    z.looseObject({
      stage: z.optional(z.string()),
      details: z.optional(z.string()),
      phases_completed: z.optional(z.number()),
      phases_total: z.optional(z.number()),
      handoff_path: z.optional(z.string()),
    }),
  ),
  completion_data: z.optional(
    z.looseObject({
      completion_summary: z.optional(z.string()),
      roadmap_items: z.optional(z.array(z.string())),
      claudemd_suggestions: z.optional(z.unknown()),
    }),
  ),
  /** A phase that is not finished says what remains; the next iteration receives it. */
  work_remaining: z.optional(z.union([z.string(), z.array(z.string())])),
  /** Repository-relative files a phase changed; a phase commit in a shared tree stages exactly these. */
  files_changed: z.optional(z.array(z.string())),
  requires_user_review: z.optional(z.boolean()),
  review_reason: z.optional(z.string()),
});
export type ReturnMetadata = z.infer<typeof ReturnMetadata>;
