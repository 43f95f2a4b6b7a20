/**
 * delegation/instructed-store-write: standing instructions — CLAUDE.md, CLAUDE.local.md, AGENTS.md and the
 * tree's rules — that tell the model to write task status or the store itself ("Update state.json first, then
 * TODO.md", "Update status BEFORE starting work", "log to errors.json", a `jq … > specs/state.json` example),
 * or to make its own commits with the session id.
 *
 * Why: the original system's CLAUDE.md told the model exactly that. Beside Baton a session refuses each such
 * write and Baton makes the change at its gates, so the model follows its instructions into refusals, or
 * types a Session trailer Baton refuses at the next GATE IN. Read as CommonMark (marked's lexer): a fence or
 * code span is what CommonMark says it is, never a guess from line patterns.
 */
import { Lexer, type Token, type Tokens } from "marked";
import { OPERATION_COMMANDS } from "../../../shared/operation-names.js";
import { isNegativeExample } from "../../markdown-body.js";
import { type Finding, finding, type LintFile, type LintModel, type Rule } from "../../rule-types.js";
import { storeWriteIn } from "./direct-state-write.js";

const KINDS = new Set(["memory", "rule"]);
const TARGET = /\b(?:specs\/)?(state\.json|TODO\.md|errors\.json)\b|(?<!git )\b(?:task )?(status(?:es)?)\b/i;
const VERB =
  /\b(update|updating|write|writing|edit|editing|set|setting|change|mark|modify|append|log|record|sync|synchroni[sz]e|bump|increment)\b/i;
const COMMIT = /\bcommit/i;
const SESSION_IN_COMMIT = /\bsession[ _-]?(?:id|trailer)\b|\bSession:/i;

const HINT =
  "In a session Baton refuses that write and makes the change itself at its gates (the status at GATE IN and GATE OUT, " +
  `errors.json on a refusal). Say instead: change tasks with ${OPERATION_COMMANDS} ` +
  "(`baton task status N <status>` outside a session).";
const COMMIT_HINT =
  "Baton commits each result itself, sealed with its key; the sandbox keeps .git read-only, and a commit that types a " +
  "Session trailer for a session Baton never ran is refused at the next GATE IN. Drop the instruction, or say Baton commits.";

export const instructedStoreWrite: Rule = {
  id: "delegation/instructed-store-write",
  severity: "warning",
  description:
    "CLAUDE.md, AGENTS.md and rules must not tell the model to write task status or commit with a session id",
  check(model: LintModel) {
    return model.files.filter((f) => KINDS.has(f.kind) && f.path.endsWith(".md")).flatMap(checkFile);
  },
};

/** What the walk knows of where it is: the heading of the current section. */
interface Place {
  heading: string;
}

function checkFile(file: LintFile): Finding[] {
  const out: Finding[] = [];
  const body = file.lines.slice(file.bodyStartLine - 1).join("\n");
  const place: Place = { heading: "" };
  walk(new Lexer({ gfm: true }).lex(body), body, file.bodyStartLine, place, (text, line, code) => {
    const found = code ? codeFinding(text) : proseFinding(text, place.heading);
    if (found) out.push(finding(instructedStoreWrite, file.path, line, 1, found.message, found.hint));
  });
  return out;
}

type Visit = (text: string, line: number, code: boolean) => void;

/** Each block in document order, with the line it starts on (found from its raw text inside its parent's). */
function walk(tokens: readonly Token[], raw: string, firstLine: number, place: Place, visit: Visit): void {
  let cursor = 0;
  for (const token of tokens) {
    const at = token.raw ? raw.indexOf(token.raw, cursor) : -1;
    const start = at < 0 ? cursor : at;
    if (at >= 0) cursor = at + token.raw.length;
    const line = firstLine + count(raw.slice(0, start), "\n");
    if (token.type === "heading") place.heading = inline((token as Tokens.Heading).tokens);
    else if (token.type === "code") {
      const code = token as Tokens.Code;
      const opening = /^ {0,3}(`{3,}|~{3,})/.test(code.raw) ? 1 : 0;
      for (const [i, text] of code.text.split("\n").entries()) visit(text, line + opening + i, true);
    } else if (token.type === "list") walk((token as Tokens.List).items, token.raw, line, place, visit);
    else if (token.type === "list_item" || token.type === "blockquote")
      walk((token as Tokens.ListItem | Tokens.Blockquote).tokens, token.raw, line, place, visit);
    else if (token.type === "paragraph" || token.type === "text")
      sentences(inline((token as Tokens.Paragraph).tokens ?? []) || (token as Tokens.Text).text, line, visit);
    else if (token.type === "table") {
      const table = token as Tokens.Table;
      for (const row of [table.header, ...table.rows])
        sentences(row.map((cell) => inline(cell.tokens)).join(" | "), line, visit);
    }
  }
}

/** A block's plain text: code spans kept as their text, emphasis and links as their words. */
function inline(tokens: readonly Token[] | undefined): string {
  return (tokens ?? [])
    .map((t) => {
      if (t.type === "codespan" || t.type === "escape") return (t as Tokens.Codespan).text;
      if (t.type === "br") return "\n";
      if (t.type === "html") return "";
      if ("tokens" in t && Array.isArray(t.tokens)) return inline(t.tokens as Token[]);
      return "text" in t ? String(t.text) : "";
    })
    .join("");
}

/** A paragraph's sentences and clauses, each with its line (a soft line break moves it on). */
function sentences(text: string, line: number, visit: Visit): void {
  let offset = 0;
  for (const part of text.split(/(?<=[.!?;])\s+/)) {
    const at = text.indexOf(part, offset);
    visit(part, line + count(text.slice(0, Math.max(at, 0)), "\n"), false);
    offset = Math.max(at, 0) + part.length;
  }
}

function proseFinding(text: string, heading: string): { message: string; hint: string } | null {
  const clause = text.replace(/\s+/g, " ").trim();
  if (clause === "" || isNegativeExample(clause) || /\bbaton\b/i.test(clause)) return null;
  // A write verb with one of the store's files or the task status after it ("Keep status, log to errors.json").
  for (const verb of clause.matchAll(new RegExp(VERB.source, "gi"))) {
    const target = TARGET.exec(clause.slice(verb.index + verb[0].length));
    if (target) {
      const what = target[1] ?? "task status";
      return { message: `tells the model to write ${what} itself: "${cut(clause)}"`, hint: HINT };
    }
  }
  if ((COMMIT.test(clause) || COMMIT.test(heading)) && SESSION_IN_COMMIT.test(clause))
    return {
      message: `tells the model to make its own commits with the session id: "${cut(clause)}"`,
      hint: COMMIT_HINT,
    };
  return null;
}

function codeFinding(text: string): { message: string; hint: string } | null {
  const write = storeWriteIn(text);
  return write
    ? { message: `shows the model a command that writes ${write.target} (${write.how})`, hint: HINT }
    : null;
}

const cut = (text: string) => (text.length > 90 ? `${text.slice(0, 87)}…` : text);
const count = (text: string, what: string) => text.split(what).length - 1;
