import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";

/** Where the suite's file durations are kept: `node scripts/test-durations.mjs` writes it after a full run. */
export const DURATIONS_FILE = resolve(import.meta.dirname, "durations.json");

function committedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

/** What is known of a test file before it runs: its last duration (ms), and whether it failed then. */
export interface KnownFile {
  duration: number | undefined;
  failed: boolean;
}

/** Unknown files first (as vitest runs them), then failed ones, then the longest. */
export function compareKnown(x: KnownFile, y: KnownFile): number {
  if (x.duration === undefined || y.duration === undefined)
    return x.duration === undefined ? (y.duration === undefined ? 0 : -1) : 1;
  if (x.failed !== y.failed) return x.failed ? -1 : 1;
  return y.duration - x.duration;
}

/**
 * Longest files first, as vitest orders them once it has run them here; on a clean clone (CI) vitest has no
 * durations of its own and starts the largest files first. Durations come from vitest's own cache when it has
 * them, else from the table kept in the repository, so CI runs in the order a developer's machine does; a
 * file in neither runs first, as vitest runs an unknown one.
 */
export default class DurationSequencer extends BaseSequencer {
  private readonly committed = committedDurations();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification): KnownFile => {
      const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
      const cached = cache.getFileTestResults(key);
      return { failed: cached?.failed ?? false, duration: cached?.duration ?? this.committed[key] };
    };
    return [...files].sort((a, b) => {
      // vitest runs projects one after another and, within one, isolated files first; kept.
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      if (a.project.config.isolate !== b.project.config.isolate) return a.project.config.isolate ? -1 : 1;
      return compareKnown(known(a), known(b));
    });
  }
}
