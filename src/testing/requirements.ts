import { resolve } from "node:path";
import { packageRoot } from "../shared/package.js";
import { present } from "../shared/present.js";

/**
 * What some tests need from outside the repository: `../shared/fixtures` (real data, never copied in)
 * and the real Claude Code binary. On a developer's machine a missing one skips those tests and says
 * so in the suite's title; under `CI=true` it fails the run, because a CI that skipped them would pass
 * without having checked anything.
 */
export function inCi(): boolean {
  return process.env["CI"] === "true" || process.env["CI"] === "1";
}

export class MissingTestRequirement extends Error {
  override name = "MissingTestRequirement";
}

/** Fails under CI when `reason` is set (the requirement is missing); returns whether tests may run. */
export function requireUnderCi(what: string, reason: string | null): boolean {
  if (reason === null) return true;
  if (inCi()) throw new MissingTestRequirement(`${what} is missing under CI=true: ${reason}`);
  return false;
}

/** `../shared/fixtures/<name>` beside the repository, or null (skip) off CI. */
export function sharedFixture(name: string): string | null {
  const path = resolve(packageRoot(), "..", "shared", "fixtures", name);
  const there = present(path);
  return requireUnderCi(`the fixture ${name}`, there ? null : `${path} does not exist`) ? path : null;
}
