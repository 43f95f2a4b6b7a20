import * as z from "zod/mini";

/**
 * Schemas for the files under specs/. Objects are loose: a real repository carries dozens of fields
 * Baton does not interpret (section 2.2 of the format reference) and every one of them must survive.
 * Only what Baton reads is typed; the raw objects are kept and edited in place so key order survives.
 */

const TaskNumber = z.number().check(z.int(), z.nonnegative());

export const ArtifactRecord = z.looseObject({
  path: z.string(),
  type: z.optional(z.string()),
  summary: z.optional(z.string()),
});
export type ArtifactRecord = z.infer<typeof ArtifactRecord>;

/** Legacy entries are bare path strings (5.7k in the original history). */
export const ArtifactEntry = z.union([z.string(), ArtifactRecord]);
export type ArtifactEntry = z.infer<typeof ArtifactEntry>;

export const TaskEntry = z.looseObject({
  project_number: TaskNumber,
  project_name: z.string(),
  status: z.string().check(z.minLength(1)),
  language: z.optional(z.string()),
  description: z.optional(z.string()),
  priority: z.optional(z.string()),
  effort: z.optional(z.union([z.string(), z.number()])),
  created: z.optional(z.string()),
  last_updated: z.optional(z.string()),
  session_id: z.optional(z.string()),
  dependencies: z.optional(z.array(z.union([z.number(), z.string()]))),
  parent_task: z.optional(z.nullable(z.number())),
  subtasks: z.optional(z.array(z.number())),
  artifacts: z.optional(z.array(ArtifactEntry)),
});
export type TaskEntry = z.infer<typeof TaskEntry>;

export const StateFile = z.looseObject({
  next_project_number: TaskNumber,
  active_projects: z.array(z.unknown()),
});
export type StateFile = z.infer<typeof StateFile>;

export const ArchivedTask = z.looseObject({
  project_number: TaskNumber,
  project_name: z.optional(z.nullable(z.string())),
  status: z.optional(z.string()),
});
export type ArchivedTask = z.infer<typeof ArchivedTask>;

export const ArchiveFile = z.looseObject({
  archived_projects: z.optional(z.array(z.unknown())),
  completed_projects: z.optional(z.array(z.unknown())),
});
export type ArchiveFile = z.infer<typeof ArchiveFile>;

export const ErrorContext = z.looseObject({
  session_id: z.optional(z.nullable(z.string())),
  command: z.optional(z.nullable(z.string())),
  task: z.optional(z.nullable(z.union([z.number(), z.string()]))),
  phase: z.optional(z.nullable(z.union([z.number(), z.string()]))),
  checkpoint: z.optional(z.nullable(z.string())),
});

export const ErrorEntry = z.looseObject({
  id: z.string(),
  timestamp: z.optional(z.string()),
  type: z.optional(z.string()),
  severity: z.optional(z.string()),
  message: z.optional(z.string()),
  context: z.optional(ErrorContext),
  fix_status: z.optional(z.string()),
});
export type ErrorEntry = z.infer<typeof ErrorEntry>;

export const ErrorsFile = z.looseObject({
  errors: z.array(z.unknown()),
});
export type ErrorsFile = z.infer<typeof ErrorsFile>;
