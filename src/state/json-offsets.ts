/**
 * Where each object of the top-level `active_projects` array starts and ends in a state.json text
 * ([start, end) character offsets), found by one scan that skips strings; null when the text is not
 * shaped so. It lets `task show` parse one entry of a 10,000-task file instead of all of them.
 */
export function activeEntryOffsets(text: string): Array<[number, number]> | null {
  const out: Array<[number, number]> = [];
  let depth = 0;
  let key: string | null = null;
  let inArray = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringEnd(text, i);
      if (end === -1) return null;
      if (depth === 1) key = text.slice(i + 1, end);
      i = end;
    } else if (c === 123 || c === 91) {
      if (depth === 1 && c === 91 && key === "active_projects") inArray = true;
      else if (depth === 2 && inArray && c === 123) start = i;
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth === 2 && inArray && c === 125 && start !== -1) {
        out.push([start, i + 1]);
        start = -1;
      } else if (depth === 1 && inArray) inArray = false;
    }
  }
  return depth === 0 ? out : null;
}

/** The index of the quote that closes the string opened at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}
