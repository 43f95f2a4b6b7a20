/**
 * The runners, by the name configuration and `--runner` give them: the one list. The factory keys its registry
 * by these names (a name without an entry does not compile), and the config schema and the CLI derive from it.
 */
export const RUNNER_TYPES = ["claude", "opencode", "codex", "command", "scripted"] as const;
export type RunnerType = (typeof RUNNER_TYPES)[number];

/** The names as a person reads them in help and errors: `claude | opencode | …`. */
export const RUNNER_CHOICES = RUNNER_TYPES.join(" | ");
