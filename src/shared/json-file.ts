import { readFileSync } from "node:fs";

/** A file's JSON object; null when it is missing, unreadable, not JSON, or not an object (what a host then ignores). */
export function readJsonObject(path: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
