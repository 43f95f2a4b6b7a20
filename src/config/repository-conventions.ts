import * as z from "zod/mini";

/**
 * The repository conventions Baton learns from the store or is told in its configuration, each list once: the
 * configuration's schema, the loaded configuration and the store's readers and writers take them from here.
 */

/** Task folders and artifacts: `N_slug` and `research-001.md` (v1), or `NNN_slug` and dated names (v2). */
export const ArtifactNaming = z.enum(["v1", "v2"]);
export type ArtifactNaming = z.infer<typeof ArtifactNaming>;

/**
 * A task's type (what routing reads) is `language` in Baton's and the original's stores and `task_type` in
 * ModelChecker's; TODO.md writes it `**Language**`, `**Task Type**` or `**Type**`.
 */
export const TASK_TYPE_KEYS = ["language", "task_type"] as const;
export const TASK_TYPE_FIELDS = ["Language", "Task Type", "Type"] as const;
export type TaskTypeKey = (typeof TASK_TYPE_KEYS)[number];
export type TaskTypeField = (typeof TASK_TYPE_FIELDS)[number];

/** The character between a slug's words. */
export const SlugSeparator = z.enum(["_", "-"]);
export type SlugSeparator = z.infer<typeof SlugSeparator>;

/** Where TODO.md takes a new task's entry. */
export const TaskPosition = z.enum(["top", "bottom"]);
export type TaskPosition = z.infer<typeof TaskPosition>;

/** Where a convention in force came from: the configuration, the repository's own files, or Baton's default. */
export type ConventionSource = "config" | "repository" | "default";
