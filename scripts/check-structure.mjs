// The size and naming rules of CONTRIBUTING.md, checked on every `npm run lint`: no function of `src/` over
// 60 lines, no source file over 300, no call filled with 15 or more fields, and no two files of `src/` with
// the same name unless each is its folder's index.ts (a name found twice makes "which one?" the first
// question of every reader); no duration or deadline computed from the wall clock; and no list of words written
// twice (check-vocabulary.mjs).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import ts from "typescript";
import { vocabularyProblems } from "./check-vocabulary.mjs";

const MAX_FUNCTION_LINES = 60;
const MAX_FILE_LINES = 300;
const MAX_REQUEST_FIELDS = 15;

const root = new URL("..", import.meta.url).pathname;

function functionName(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText();
  return "(anonymous function)";
}

/** What one source file breaks of the size and clock rules, as `file:line: what and what to do`. */
export function fileProblems(file, text) {
  const problems = [];
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > MAX_FILE_LINES) problems.push(`${file}: ${lines} lines (at most ${MAX_FILE_LINES})`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const length = last - first + 1;
      if (length > MAX_FUNCTION_LINES) {
        problems.push(
          `${file}:${first + 1}: ${functionName(node)} has ${length} lines (at most ${MAX_FUNCTION_LINES})`,
        );
      }
    }
    if (ts.isIdentifier(node) && node.text === "existsSync" && !file.endsWith("shared/present.ts")) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      problems.push(
        `${file}:${line}: existsSync takes the /dev/null a host sandbox binds over a missing protected path for a file; use present() from src/shared/present.ts`,
      );
    }
    if (isLongRequest(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      problems.push(
        `${file}:${line}: a call filled with ${node.properties.length} fields (at most ${MAX_REQUEST_FIELDS - 1}); pass the prepared value it derives from (the run), and group what varies per call`,
      );
    }
    if (isWallClockArithmetic(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      problems.push(
        `${file}:${line}: a duration or deadline from Date.now() steps with the wall clock (NTP, suspend); use monotonicMs() or Stopwatch from src/shared/time.ts`,
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

/**
 * An object literal of 15 or more fields passed to a call: a caller unpacking a value field by field that the
 * callee could take whole (a zod schema's shape is a definition, not a call's arguments).
 */
function isLongRequest(node) {
  if (!ts.isObjectLiteralExpression(node) || node.properties.length < MAX_REQUEST_FIELDS) return false;
  const call = node.parent;
  if (!ts.isCallExpression(call) && !ts.isNewExpression(call)) return false;
  return !/^z\./.test(call.expression.getText());
}

/**
 * `Date.now() - start`, `Date.now() + wait`: durations and deadlines belong on the monotonic clock. Only a
 * comparison with a file's modification time (itself wall-clock) may use the wall clock.
 */
function isWallClockArithmetic(node) {
  if (!ts.isBinaryExpression(node)) return false;
  const op = node.operatorToken.kind;
  if (op !== ts.SyntaxKind.MinusToken && op !== ts.SyntaxKind.PlusToken) return false;
  const isNow = (n) => /^Date\.now\(\)$/.test(n.getText());
  if (!isNow(node.left) && !isNow(node.right)) return false;
  return !/mtimeMs/.test(node.getText());
}

/** What the source files break, each read once: the rules of each file, and each list of words written once. */
export function treeProblems(files) {
  const problems = files.flatMap(({ file, text }) => fileProblems(file, text));
  return [...problems, ...vocabularyProblems(files.filter(({ file }) => file.endsWith(".ts")))];
}

function checkTree() {
  const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "src"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((f) => f !== "");
  const sources = tracked.filter(
    (f) => /\.(ts|js|mjs)$/.test(f) && !/\.test\.ts$/.test(f) && !f.includes("/fixtures/"),
  );
  const problems = treeProblems(
    sources.map((file) => ({ file, text: readFileSync(`${root}${file}`, "utf8") })),
  );
  const byName = new Map();
  for (const file of tracked) {
    const name = basename(file);
    if (name === "index.ts") continue;
    byName.set(name, [...(byName.get(name) ?? []), file]);
  }
  for (const [name, files] of byName) {
    if (files.length > 1) problems.push(`${name} is the name of ${files.length} files: ${files.join(", ")}`);
  }
  return { sources, problems };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { sources, problems } = checkTree();
  if (problems.length > 0) {
    process.stderr.write(
      `check-structure: ${problems.length} problem(s) (split what is too long along its logic's parts; rename a file to say what it is; name a list of words once):\n`,
    );
    for (const p of problems) process.stderr.write(`  ${p}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `check-structure: ${sources.length} source files within the limits, every name unique, every list of words written once\n`,
  );
}
