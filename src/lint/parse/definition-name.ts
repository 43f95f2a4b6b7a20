import type { FileKind } from "../rule-types.js";

/** The name a definition is known by when its frontmatter gives none: file stem, or the skill's folder. */
export function fileName(path: string, kind: FileKind): string {
  const parts = path.split("/");
  if (kind === "skill") return parts[parts.length - 2] ?? "";
  const base = parts[parts.length - 1] ?? "";
  return base.replace(/\.(md|sh)$/, "");
}
