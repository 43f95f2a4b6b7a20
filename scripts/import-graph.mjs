// The import graph of src/, read from the code's own import statements: which file imports which, with the
// line of each import and whether a `side door:` comment explains it. check-structure.mjs holds the layering
// rules of docs/architecture.md against it, and `node scripts/architecture.mjs` prints its counts.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";

export const root = new URL("..", import.meta.url).pathname;

/** Every production source file of src/ (tests and fixtures are not part of the structure). */
export function sourceFiles() {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "src"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((f) => /\.ts$/.test(f) && !/\.test\.ts$/.test(f) && !f.includes("/fixtures/"));
}

/** The domain of a file: its first folder under src/, or "" for src/index.ts. */
export function domainOf(file) {
  const parts = file.split("/");
  return parts.length > 2 ? parts[1] : "";
}

/** `src/engine/gate-out/x.ts` → `gate-out`; a file directly in its domain → its own name without `.ts`. */
export function roomOf(file) {
  const parts = file.split("/");
  if (parts.length <= 3) return parts.at(-1).replace(/\.ts$/, "");
  return parts[2];
}

function resolveImport(from, specifier, files) {
  if (!specifier.startsWith(".")) return undefined;
  const base = normalize(join(dirname(from), specifier)).replace(/\.js$/, "");
  for (const candidate of [`${base}.ts`, `${base}/index.ts`]) if (files.has(candidate)) return candidate;
  return undefined;
}

/**
 * Why an import enters a domain past its index.ts: a `// side door: why` comment on the line above it (or on
 * its own line), or a `// side doors: why` line of the file's own, which covers every such import of the file.
 */
function sideDoorReason(lines, line) {
  for (const text of [lines[line - 2], lines[line - 1]]) {
    const match = /\/\/\s*side door:\s*(.+)$/.exec(text ?? "");
    if (match) return match[1].trim();
  }
  for (const text of lines) {
    const match = /^\/\/ side doors:\s*(.+)$/.exec(text);
    if (match) return match[1].trim();
  }
  return undefined;
}

/** Every import of one file to another file of src/, with its line and whether it is type-only. */
export function readImports(files = sourceFiles()) {
  const known = new Set(files);
  const imports = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const lines = text.split("\n");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const add = (specifierNode, typeOnly) => {
      const to = resolveImport(file, specifierNode.text, known);
      if (to === undefined) return;
      const line = source.getLineAndCharacterOfPosition(specifierNode.getStart(source)).line + 1;
      const startLine = source.getLineAndCharacterOfPosition(specifierNode.parent.getStart(source)).line + 1;
      imports.push({ from: file, to, line, startLine, typeOnly, sideDoor: sideDoorReason(lines, startLine) });
    };
    const visit = (node) => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        const typeOnly = ts.isImportDeclaration(node)
          ? (node.importClause?.isTypeOnly ?? false)
          : node.isTypeOnly;
        add(node.moduleSpecifier, typeOnly);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0], false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return imports;
}

/** The files that import each other in a loop (Tarjan's strongly connected components of size two or more). */
export function circles(imports) {
  const edges = new Map();
  for (const { from, to } of imports) {
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let counter = 0;
  const connect = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) connect(node);
  return found;
}
