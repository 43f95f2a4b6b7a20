/** Splits `Read, Bash(git add:*), Edit` at commas outside parentheses; a YAML list is taken as is. */
export function toolEntries(value: unknown): string[] {
  if (Array.isArray(value))
    return value.filter((v): v is string => typeof v === "string").map((v) => v.trim());
  if (typeof value !== "string") return [];
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of value) {
    if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (char === "," && depth === 0) {
      out.push(current.trim());
      current = "";
    } else current += char;
  }
  out.push(current.trim());
  return out.filter((entry) => entry !== "");
}
