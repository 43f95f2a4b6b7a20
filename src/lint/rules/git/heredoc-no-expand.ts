/**
 * git/heredoc-no-expand: a quoted heredoc (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) whose body uses shell
 * variables (`$session_id`, `${task_number}`, `$(date …)`): quoting the delimiter turns expansion off, so
 * the text keeps the literal `$session_id`.
 *
 * Why: the original's commit templates were `git commit -m "$(cat <<'EOF' … Session: $session_id … EOF)"`;
 * 49 commits carry a literal `sess_$(date …` or `$session_id` in their body, which broke the session
 * trailer every tool used to trace a commit back to its run. Heredocs fed to an interpreter that expands
 * `$` itself (jq, awk, python, node, bash …, envsubst) or written to a script file (`cat > x.sh <<'EOF'`)
 * are quoted on purpose and not reported. `{session_id}` placeholders the model fills in are not variables.
 */
import { type FileKind, type Finding, finding, type LintFile, type Rule } from "../../rule-types.js";
import { eachFileOf, type TextLine, textLines } from "../delegation/delegation-scan.js";

const KINDS = new Set<FileKind>(["command", "skill", "agent", "script", "hook-script", "context", "rule"]);
const HEREDOC = /(?<!<)<<(-?)\s*(?:'([\w.-]+)'|"([\w.-]+)"|\\([\w.-]+)|([\w.-]+))/;
const INTERPRETER =
  /\b(?:jq|awk|gawk|sed|python3?|node|deno|bun|perl|ruby|php|bash|sh|zsh|envsubst|psql|sqlite3|mysql|ssh|docker|kubectl)\b/;
const SCRIPT_TARGET =
  /(?:>>?|\btee\s+(?:-a\s+)?)\s*["']?[^\s"']*\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|jq|awk|pl|rb|lean|mk)\b|Makefile/;
const VARIABLE = /\$(?:\{[A-Za-z_]\w*[^}]*\}|[A-Za-z_]\w*|\()/;
const VARIABLES = new RegExp(VARIABLE.source, "g");

export const heredocNoExpand: Rule = {
  id: "git/heredoc-no-expand",
  severity: "error",
  description: "Variables inside a quoted heredoc (<<'EOF') never expand",
  check: eachFileOf(KINDS, checkFile),
};

function checkFile(file: LintFile): Finding[] {
  const lines = textLines(file);
  const out: Finding[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i];
    if (!open?.code) continue;
    const match = HEREDOC.exec(open.text);
    const delimiter = match?.[2] ?? match?.[3] ?? match?.[4];
    if (!match || !delimiter) continue;
    const body: TextLine[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j];
      if (!l?.code || l.block !== open.block || l.text.trim() === delimiter) break;
      body.push(l);
    }
    const consumer = lastCommand(open.text.slice(0, match.index));
    i = j;
    if (INTERPRETER.test(consumer) || SCRIPT_TARGET.test(open.text)) continue;
    const first = body.find((l) => VARIABLE.test(l.text));
    if (!first) continue;
    const names = [...new Set(body.flatMap((l) => l.text.match(VARIABLES) ?? []))].slice(0, 3);
    out.push(
      finding(
        heredocNoExpand,
        file.path,
        first.line,
        first.text.search(VARIABLE) + 1,
        `${names.join(", ")} inside a quoted heredoc (\`${match[0]}\` on line ${open.line}) is never expanded`,
        `Unquote the delimiter (<<${match[1]}${delimiter}) so the shell expands the variables, escaping any literal $ as \\$; ` +
          "or build the text with printf and arguments.",
      ),
    );
  }
  return out;
}

/** The last simple command before the `<<` (after `|`, `;`, `&&`), which is what reads the heredoc. */
function lastCommand(prefix: string): string {
  const parts = prefix.split(/\|\||&&|[|;]/);
  return parts[parts.length - 1] ?? prefix;
}
