/** Every task status Baton writes. Others found in real files (`implemented`, `revised`…) are kept as read. */
export const TASK_STATUSES = [
  "not_started",
  "researching",
  "researched",
  "planning",
  "planned",
  "implementing",
  "partial",
  "completed",
  "blocked",
  "abandoned",
  "expanded",
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export function isTaskStatus(value: string): value is TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}

export const TERMINAL_STATUSES: readonly string[] = ["completed", "abandoned"];

/** `not_started` ↔ `[NOT STARTED]` (format reference 2.4). */
const MARKERS = new Map<string, string>();

export function statusToMarker(status: string): string {
  let marker = MARKERS.get(status);
  if (marker === undefined) {
    marker = `[${status.toUpperCase().replace(/_/g, " ")}]`;
    MARKERS.set(status, marker);
  }
  return marker;
}

export function markerToStatus(marker: string): string {
  return marker
    .replace(/^\[|\]$/g, "")
    .trim()
    .toLowerCase()
    .replace(/ +/g, "_");
}
