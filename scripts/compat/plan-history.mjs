// Plan check of scripts/compat-history.mjs: every version of every plan file in the history (each distinct
// blob under a task folder's plans/) parses with the phases its headings name. The headings are found here
// independently of Baton's reader: marked's CommonMark lexer, the document's own headings (not in code, HTML,
// a quote or a list) at levels 2-4 whose text is `Phase(s) <something with a digit>` and then a colon.
// Each must be a phase Baton reads or a PLAN_UNREADABLE problem Baton names at that line (a plan read short
// otherwise); and each phase Baton reads must sit on such a heading (a phantom otherwise).
import { spawn } from "node:child_process";
import { Lexer } from "marked";

const NAMED = /^Phases?\s+\S*\d\S*?\s*(?:\([^)]*\)\s*)?(?:\[[^\]]*\]\s*)*:/;
const HEADING = /^Phases?\s/;

/** The lines (1-based) of the document's own level 2-4 headings whose text matches `pattern`. */
function headingLines(text, pattern) {
  const lines = new Set();
  let line = 1;
  for (const token of new Lexer({ gfm: true }).blockTokens(text.replace(/\r\n/g, "\n"), [])) {
    if (token.type === "heading" && token.depth >= 2 && token.depth <= 4 && pattern.test(token.text))
      lines.add(line);
    line += (token.raw.match(/\n/g) ?? []).length;
  }
  return lines;
}

/** Every distinct plan blob reachable in the repository, with one path it had. */
function planBlobs(gitDir) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", gitDir, "rev-list", "--all", "--objects"]);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", () =>
      resolve(
        out
          .split("\n")
          .map((row) => /^([0-9a-f]{40}) (specs\/.*plans\/[^/]+\.md)$/.exec(row))
          .filter(Boolean)
          .map((m) => ({ blob: m[1], path: m[2] })),
      ),
    );
  });
}

/** The blobs' texts through one `git cat-file --batch` (a blob the snapshot lacks is skipped). */
function readBlobs(gitDir, blobs) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch"]);
    const chunks = [];
    child.stdout.on("data", (d) => chunks.push(d));
    child.stderr.on("data", () => undefined);
    child.on("error", reject);
    child.on("exit", () => {
      const data = Buffer.concat(chunks);
      const texts = new Map();
      for (let at = 0; at < data.length; ) {
        const nl = data.indexOf(10, at);
        const [id, kind, size] = data.subarray(at, nl).toString().split(" ");
        if (kind === "missing" || size === undefined) {
          at = nl + 1;
          continue;
        }
        texts.set(id, data.subarray(nl + 1, nl + 1 + Number(size)).toString("utf8"));
        at = nl + 1 + Number(size) + 1;
      }
      resolve(texts);
    });
    child.stdin.end(blobs.map((b) => b.blob).join("\n") + "\n");
  });
}

/** Checks every plan version; returns counts and a few examples of each kind of failure. */
export async function checkPlanHistory(lib, gitDir) {
  const blobs = await planBlobs(gitDir);
  const texts = await readBlobs(gitDir, blobs);
  const result = { plans: 0, phases: 0, unreadable: 0, short: [], phantom: [] };
  for (const { blob, path } of blobs) {
    const text = texts.get(blob);
    if (text === undefined) continue;
    result.plans++;
    const parsed = lib.parsePlan(path, text);
    const plan = parsed.ok ? parsed.plan : parsed.partial;
    const named = parsed.ok ? [] : parsed.problems.filter((p) => p.code === "PLAN_UNREADABLE");
    result.phases += plan.phases.length;
    if (named.length > 0) result.unreadable++;
    const read = new Set([...plan.phases.map((p) => p.line), ...named.map((p) => p.line)]);
    const missed = [...headingLines(text, NAMED)].filter((line) => !read.has(line));
    if (missed.length > 0)
      result.short.push(`${blob.slice(0, 10)} ${path}: lines ${missed.slice(0, 5).join(", ")}`);
    const headings = headingLines(text, HEADING);
    const phantoms = plan.phases.filter((p) => !headings.has(p.line)).map((p) => p.line);
    if (phantoms.length > 0)
      result.phantom.push(
        `${blob.slice(0, 10)} ${path}: lines ${[...new Set(phantoms)].slice(0, 5).join(", ")}`,
      );
  }
  return result;
}
