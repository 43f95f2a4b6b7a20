/** Repository-relative paths as Baton compares them: `/`-separated, normalised, known to stay inside the root. */

/** `./a//b/../c/` → `a/c`; backslashes become `/`. A path escaping the root keeps its leading `..`. */
export function normalizePath(path: string): string {
  const out: string[] = [];
  const absolute = path.startsWith("/");
  for (const part of path.replace(/\\/g, "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(part);
  }
  return (absolute ? "/" : "") + out.join("/");
}

/** Whether a normalised relative path stays inside the root. */
export function isInsideRoot(path: string): boolean {
  return path !== ".." && !path.startsWith("../") && !path.startsWith("/");
}
