import { randomBytes } from "node:crypto";

/** `YYYY-MM-DDTHH:MM:SSZ`, the timestamp form used throughout specs/ (no milliseconds). */
export function isoTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `YYYY-MM-DD`, the date form used inside TODO.md entries. */
export function isoDate(date: Date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

export const SESSION_ID_PATTERN = /^sess_\d{10}_[0-9a-f]{6}$/;

/** `sess_{unix seconds}_{6 hex}`, generated in code so no commit ever carries an unexpanded placeholder. */
export function newSessionId(date: Date = new Date()): string {
  return `sess_${Math.floor(date.getTime() / 1000)}_${randomBytes(3).toString("hex")}`;
}
