import type { TaskPosition } from "../config/index.js";
import { statusToMarker } from "./task-status.js";
import {
  ENTRY_HEADING,
  FIELD_PREFIX,
  findFieldLine,
  RawSegment,
  STATUS_LINE,
  type TodoDocument,
  TodoEntry,
  type TodoSegment,
} from "./todo-document.js";

/** `- **Name**: value` and the variants of FIELD_PREFIX; group 1 is the line's prefix, group 2 the name. */
function fieldPattern(names: readonly string[]): RegExp {
  const alternatives = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  return new RegExp(`${FIELD_PREFIX}(${alternatives})(?:\\*\\*:|:\\*\\*)`, "i");
}

const FIELD_LINE = new RegExp(`${FIELD_PREFIX}[^*]+(?:\\*\\*:|:\\*\\*)`);

/** How the entry writes its field lines (`- **Name**: ` or the entry's own variant), for lines Baton adds. */
function fieldStyle(entry: TodoEntry): { prefix: string; colonInside: boolean } {
  const i = findFieldLine(entry, FIELD_LINE);
  if (i === -1) return { prefix: "- ", colonInside: false };
  const match = FIELD_LINE.exec(entry.lines[i]!)!;
  return { prefix: match[1] ?? "- ", colonInside: match[0].endsWith(":**") };
}

function fieldLine(entry: TodoEntry, name: string, value: string): string {
  const style = fieldStyle(entry);
  return `${style.prefix}**${name}${style.colonInside ? ":**" : "**:"} ${value}`;
}

export function setEntryStatus(entry: TodoEntry, status: string): void {
  const i = findFieldLine(entry, STATUS_LINE);
  const marker = statusToMarker(status);
  if (i === -1) {
    entry.lines.splice(1, 0, fieldLine(entry, "Status", marker));
    return;
  }
  // Only the marker changes: the line's bullet, spelling and anything after the marker stay as written.
  entry.lines[i] = entry.lines[i]!.replace(STATUS_LINE, (whole, _prefix, old: string) =>
    whole.slice(0, whole.length - old.length).concat(marker),
  );
}

export function setEntryTitle(entry: TodoEntry, title: string): void {
  entry.title = title;
  entry.lines[0] = `### ${entry.number}. ${title}`;
}

/** Index of the last line of the field block under the heading (continuation lines included); 0 if none. */
function fieldBlockEnd(entry: TodoEntry): number {
  let last = 0;
  for (let i = 1; i < entry.lines.length; i++) {
    const line = entry.lines[i]!;
    if (FIELD_LINE.test(line) || (last > 0 && /^\s+\S/.test(line))) last = i;
    else break;
  }
  return last;
}

export function getEntryField(entry: TodoEntry, names: readonly string[]): string | undefined {
  const i = findFieldLine(entry, fieldPattern(names));
  if (i === -1) return undefined;
  return entry.lines[i]!.replace(FIELD_LINE, "").replace(/^\s/, "");
}

/**
 * Sets `- **name**: value`, replacing the first line of any alias, or inserting after the field
 * named in `after` (the first one found), or at the end of the field block.
 */
export function setEntryField(
  entry: TodoEntry,
  names: readonly string[],
  value: string,
  after: readonly string[] = ["Language"],
): void {
  const pattern = fieldPattern(names);
  const i = findFieldLine(entry, pattern);
  if (i !== -1) {
    // The existing line keeps its bullet, its name's spelling and its colon; only the value changes.
    const head = pattern.exec(entry.lines[i]!)![0];
    entry.lines[i] = `${head} ${value}`;
    return;
  }
  const line = fieldLine(entry, names[0]!, value);
  let anchor = -1;
  for (const name of after) {
    anchor = findFieldLine(entry, fieldPattern([name]));
    if (anchor !== -1) break;
  }
  if (anchor === -1) anchor = fieldBlockEnd(entry);
  while (anchor + 1 < entry.lines.length && /^\s+- /.test(entry.lines[anchor + 1]!)) anchor++;
  entry.lines.splice(anchor + 1, 0, line);
}

/**
 * Replaces a field together with its indented continuation lines (the v2 multi-line artifact lists),
 * or inserts it after the first field of `after` that exists.
 */
export function setEntryBlock(
  entry: TodoEntry,
  name: string,
  block: readonly string[],
  after: readonly string[],
): void {
  const pattern = fieldPattern([name]);
  const at = findFieldLine(entry, pattern);
  if (at !== -1) {
    let count = 1;
    while (at + count < entry.lines.length && /^\s+- /.test(entry.lines[at + count]!)) count++;
    entry.lines.splice(at, count, ...block);
    return;
  }
  let anchor = -1;
  for (const candidate of after) {
    anchor = findFieldLine(entry, fieldPattern([candidate]));
    if (anchor !== -1) break;
  }
  if (anchor === -1) anchor = fieldBlockEnd(entry);
  while (anchor + 1 < entry.lines.length && /^\s+- /.test(entry.lines[anchor + 1]!)) anchor++;
  entry.lines.splice(anchor + 1, 0, ...block);
}

/** The field line and its continuation lines, or [] when the entry has no such field. */
export function getEntryBlock(entry: TodoEntry, name: string): string[] {
  const at = findFieldLine(entry, fieldPattern([name]));
  if (at === -1) return [];
  const block = [entry.lines[at]!];
  for (let i = at + 1; i < entry.lines.length && /^\s+- /.test(entry.lines[i]!); i++)
    block.push(entry.lines[i]!);
  return block;
}

export function removeEntryField(entry: TodoEntry, names: readonly string[]): void {
  const i = findFieldLine(entry, fieldPattern(names));
  if (i === -1) return;
  let count = 1;
  while (i + count < entry.lines.length && /^\s+- /.test(entry.lines[i + count]!)) count++;
  entry.lines.splice(i, count);
}

const DESCRIPTION_LINE = /^\s*\*\*Description(?:\*\*:|:\*\*)\s?/;

export function getEntryDescription(entry: TodoEntry): string | undefined {
  const i = entry.lines.findIndex((l) => DESCRIPTION_LINE.test(l));
  if (i === -1) return undefined;
  const parts = [entry.lines[i]!.replace(DESCRIPTION_LINE, "")];
  for (let j = i + 1; j < entry.lines.length; j++) {
    const line = entry.lines[j]!;
    if (line.trim() === "" || line === "---") break;
    parts.push(line);
  }
  return parts.join("\n");
}

/** Replaces the `**Description**:` paragraph (up to the next blank line), or adds one after the fields. */
export function setEntryDescription(entry: TodoEntry, description: string): void {
  const newLines = `**Description**: ${description}`.split(/\r?\n/);
  const i = entry.lines.findIndex((l) => DESCRIPTION_LINE.test(l));
  if (i !== -1) {
    let end = i + 1;
    while (end < entry.lines.length && entry.lines[end]!.trim() !== "" && entry.lines[end] !== "---") end++;
    entry.lines.splice(i, end - i, ...newLines);
    return;
  }
  const at = fieldBlockEnd(entry) + 1;
  entry.lines.splice(at, 0, "", ...newLines);
}

export interface NewEntryFields {
  number: number;
  title: string;
  status: string;
  language: string;
  /** The TODO field the repository writes a task's type under (`Language`, `Task Type`, `Type`). */
  typeField?: string | undefined;
  effort?: string | undefined;
  priority?: string | undefined;
  dependencies?: readonly number[] | undefined;
  parent?: number | undefined;
  created: string;
  description?: string | undefined;
}

/** The /task create template (format reference 3.3), with Priority, Dependencies and Parent when set. */
export function buildEntry(fields: NewEntryFields): TodoEntry {
  const lines = [
    `### ${fields.number}. ${fields.title}`,
    `- **Effort**: ${fields.effort ?? "TBD"}`,
    `- **Status**: ${statusToMarker(fields.status)}`,
    `- **${fields.typeField ?? "Language"}**: ${fields.language}`,
  ];
  if (fields.priority) lines.push(`- **Priority**: ${fields.priority}`);
  if (fields.dependencies && fields.dependencies.length > 0) {
    lines.push(`- **Dependencies**: ${fields.dependencies.join(", ")}`);
  }
  if (fields.parent !== undefined) lines.push(`- **Parent**: ${fields.parent}`);
  lines.push(`- **Created**: ${fields.created}`);
  if (fields.description) lines.push("", ...`**Description**: ${fields.description}`.split(/\r?\n/));
  lines.push("", "---", "");
  return new TodoEntry(fields.number, fields.title, { lines });
}

const TASKS_HEADING = /^## Tasks\s*$/;

/**
 * New entries go right after `## Tasks`, newest first, as the original /task inserted them; with
 * position "bottom" after the last entry of that section. Without a `## Tasks` section the entry goes
 * before the first entry anywhere (legacy priority sections), else into a new `## Tasks` section.
 */
export function insertEntry(doc: TodoDocument, entry: TodoEntry, position: TaskPosition): void {
  const segments = doc.segments;
  const tasksAt = segments.findIndex((s) => s.kind === "raw" && s.lines.some((l) => TASKS_HEADING.test(l)));
  if (tasksAt === -1) {
    const firstEntry = segments.findIndex((s) => s.kind === "entry");
    if (firstEntry !== -1 && position === "top") {
      segments.splice(firstEntry, 0, entry);
      return;
    }
    if (firstEntry !== -1) {
      segments.splice(lastEntryIndex(doc, firstEntry) + 1, 0, entry);
      return;
    }
    const tail = segments[segments.length - 1];
    const block: string[] = [];
    if (tail && tail.lines[tail.lines.length - 1]?.trim() !== "") block.push("");
    block.push("## Tasks", "");
    segments.push(new RawSegment({ lines: block }), entry);
    return;
  }
  const tasksSegment = segments[tasksAt]!;
  const headingLine = tasksSegment.lines.findIndex((l) => TASKS_HEADING.test(l));
  const afterHeading = tasksSegment.lines.slice(headingLine + 1);
  const sectionEndsInSegment = afterHeading.some((l) => /^#{1,2} \S/.test(l));
  if (sectionEndsInSegment || segments[tasksAt + 1]?.kind !== "entry") {
    // No entries directly in this section: put the entry after the heading and its leading lines.
    let insertAt = headingLine + 1;
    while (
      insertAt < tasksSegment.lines.length &&
      /^(\s*|---|<!--.*-->)$/.test(tasksSegment.lines[insertAt]!)
    ) {
      insertAt++;
    }
    const before = tasksSegment.lines.slice(0, insertAt);
    const after = tasksSegment.lines.slice(insertAt);
    if (before[before.length - 1]?.trim() !== "") before.push("");
    const terminated = tasksSegment.terminated;
    tasksSegment.lines = before;
    tasksSegment.terminated = true;
    const rest: TodoSegment[] = after.length > 0 ? [new RawSegment({ lines: after, terminated })] : [];
    segments.splice(tasksAt + 1, 0, entry, ...rest);
    return;
  }
  if (position === "top") segments.splice(tasksAt + 1, 0, entry);
  else segments.splice(lastEntryIndex(doc, tasksAt + 1) + 1, 0, entry);
}

function lastEntryIndex(doc: TodoDocument, from: number): number {
  let i = from;
  while (i + 1 < doc.segments.length && doc.segments[i + 1]!.kind === "entry") i++;
  return i;
}

export function removeEntry(doc: TodoDocument, number: number): TodoEntry | undefined {
  const i = doc.segments.findIndex((s) => s.kind === "entry" && s.number === number);
  if (i === -1) return undefined;
  const [removed] = doc.segments.splice(i, 1);
  return removed as TodoEntry;
}

export { ENTRY_HEADING };
