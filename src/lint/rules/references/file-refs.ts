import { bodyLines } from "../../markdown-body.js";
import type { LintModel } from "../../rule-types.js";
import { instructionFiles, type Reference } from "./reference-scan.js";

/**
 * `@path` mentions: Claude Code inlines them in CLAUDE.md and prompts, and agents are told to load them.
 * Only path-shaped mentions count: they start with `.`/`~`, or end in a file extension we know, so
 * `@types/node` (npm scope), `@preview/cetz` (typst), `@Override` and `user@host.com` never do.
 */
const AT_PATH = /(^|[\s(["'<])@((?:\.{1,2}\/)?[\w.~-]+(?:\/[\w.~-]+)*\/?)/g;
const EXTENSION =
  /\.(md|markdown|json|jsonl|ya?ml|toml|sh|bash|ts|js|mjs|cjs|py|lean|tex|typ|bib|txt|csv|html|css|sty|cls)$/;

export function fileReferences(model: LintModel): Reference[] {
  const out: Reference[] = [];
  for (const file of instructionFiles(model)) {
    for (const { text, line, inFence } of bodyLines(file)) {
      // Fenced blocks are examples and shell (`git log @{u}`, decorators), not instructions.
      if (inFence || !text.includes("@")) continue;
      for (const match of text.matchAll(AT_PATH)) {
        const path = (match[2] ?? "").replace(/[.,;:]+$/, "");
        const rooted = inTree(model, path) || path.startsWith("./");
        if (path.startsWith("~") || !(rooted || EXTENSION.test(path))) continue;
        // `@.claude/` alone names the tree (prose about prefixes), not a file to load.
        if (model.hosts.some((h) => path.replace(/\/$/, "") === h.tree)) continue;
        // `@{N}_{SLUG}`-style templates stop the match at `{`; a path ending in `_` or `/` is a cut template.
        const next = text[match.index + match[0].length];
        if (next === "{" || next === "$" || next === "<" || next === "*") continue;
        out.push({
          file,
          name: path,
          line,
          column: match.index + (match[1]?.length ?? 0) + 1,
          via: "@",
        });
      }
    }
  }
  return out;
}

/** Root-relative first (Claude Code's cwd), then relative to the mentioning file (CLAUDE.md imports). */
export function referencedFileExists(model: LintModel, ref: Reference): boolean {
  if (model.exists(ref.name)) return true;
  const dir = ref.file.path.split("/").slice(0, -1).join("/");
  return !inTree(model, ref.name) && model.exists(`${dir}/${ref.name}`);
}

/** Whether a path is inside one of the hosts' trees (`.claude/…`): those are always root-relative. */
function inTree(model: LintModel, path: string): boolean {
  return model.hosts.some((h) => path.startsWith(`${h.tree}/`));
}
