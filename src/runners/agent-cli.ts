import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type * as z from "zod/mini";
import { ConfigError, formatIssues, validationIssues } from "../shared/index.js";
import { TailBuffer } from "../shared/lines.js";
import { present } from "../shared/present.js";
import { findOnPath } from "./claude-binary.js";
import type { RunnerEvent } from "./runner-types.js";

/** Runner options checked against their schema; a ConfigError naming the field and showing an example otherwise. */
export function validRunnerOptions<T>(
  schema: z.ZodMiniType<T>,
  options: unknown,
  runner: string,
  example: string,
): T {
  const issues = validationIssues(schema, options);
  if (issues)
    throw new ConfigError(`${runner} runner: ${formatIssues(issues)}`, { hint: `Example: ${example}` });
  return options as T;
}

/**
 * An agent CLI's executable: the configured one (a name on PATH or a path relative to the repository),
 * else `command` on PATH, else the file an npm package installs (resolved from the repository, then Baton).
 */
export function locateAgentCli(spec: {
  binary?: string | undefined;
  baseDir: string;
  pathValue: string | undefined;
  command: string;
  packageFile: string;
  install: string;
}): { path: string } | { path: null; message: string } {
  const { binary, command } = spec;
  if (binary !== undefined) {
    if (!binary.includes("/")) {
      const found = findOnPath(binary, spec.pathValue);
      return found
        ? { path: found }
        : { path: null, message: `${command} binary "${binary}" is not on PATH` };
    }
    const path = resolve(spec.baseDir, binary);
    return present(path) ? { path } : { path: null, message: `${command} binary ${path} does not exist` };
  }
  const onPath = findOnPath(command, spec.pathValue);
  if (onPath) return { path: onPath };
  for (const from of [join(spec.baseDir, "package.json"), import.meta.url]) {
    try {
      const path = createRequire(from).resolve(spec.packageFile);
      accessSync(path, constants.R_OK);
      return { path };
    } catch {
      // not installed there
    }
  }
  return {
    path: null,
    message: `no ${command} binary: install it (${spec.install}) or set the runner's "binary"`,
  };
}

const OUTPUT_TAIL_BYTES = 64 * 1024;

/**
 * The text an agent CLI's JSON events carry (its messages, lines that are not JSON), kept as the run's
 * output (its tail: TASK_ERROR lines are read from it) and shown as output events.
 */
export class EventText {
  private readonly tail = new TailBuffer(OUTPUT_TAIL_BYTES);

  keep(line: string, emit: (event: RunnerEvent) => void): void {
    this.tail.push(Buffer.from(`${line}\n`, "utf8"));
    emit({ type: "output", stream: "stdout", line });
  }

  text(): string {
    return this.tail.text();
  }
}

/**
 * One line of a JSON event stream: the event as `schema` reads it (and the raw value, for the event's own
 * schema), or null when the line is not such an event, in which case it is kept as output text.
 */
export function readEvent<T>(
  line: string,
  schema: z.ZodMiniType<T>,
  text: EventText,
  emit: (event: RunnerEvent) => void,
): { value: unknown; event: T } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    text.keep(line, emit);
    return null;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    text.keep(line, emit);
    return null;
  }
  return { value, event: parsed.data };
}

export const clipLabel = (text: string) => (text.length > 120 ? `${text.slice(0, 119)}…` : text);
