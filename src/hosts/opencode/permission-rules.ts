import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import {
  applyEdits,
  type FormattingOptions,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
} from "jsonc-parser";
import { type InitManifest, sha256 } from "../../init/index.js";
import { BATON_DIR, MARKER_FILES } from "../../shared/baton-paths.js";
import { FileFormatError } from "../../shared/index.js";
import { present } from "../../shared/present.js";
import { specsPaths } from "../../state/index.js";
import { OPENCODE_CONFIG_FILES, PERMISSION_ACTIONS } from "./opencode-words.js";

/**
 * Baton's rules in opencode's `permission.edit` (opencode contract 2.4): deny rules for the files only
 * Baton writes. They hold for every agent even when the plugin fails to load, and they are the only
 * part of opencode.json Baton touches. Edits go through jsonc-parser, so comments and the user's
 * formatting in `opencode.jsonc` survive.
 */
export type OpencodeConfigRecord = NonNullable<InitManifest["opencode"]>;
type Json = Record<string, unknown>;

/**
 * Project-relative patterns (opencode's `*` matches across `/`) of the files Baton alone writes, named
 * by the store's own paths module, so a file the store adds is denied here too.
 */
export function storeEditPatterns(specsDir: string): string[] {
  const specs = specsDir.replace(/\/+$/, "");
  const paths = specsPaths(specs);
  return [
    paths.state,
    paths.todo,
    paths.archiveState,
    paths.errors,
    `${paths.internalDir}/*`,
    `${BATON_DIR}/*`,
    ...MARKER_FILES.map((name) => `*${name}`),
  ].map((p) => p.split(sep).join("/"));
}

export interface OpencodeConfigFile {
  path: string;
  exists: boolean;
  text: string | null;
  value: Json;
}

/** `opencode.json`, or `opencode.jsonc` when only that exists; a new file is `opencode.json`. */
export function readOpencodeConfig(root: string, recorded?: string): OpencodeConfigFile {
  const candidates: readonly string[] = recorded ? [recorded] : OPENCODE_CONFIG_FILES;
  const rel = candidates.find((c) => present(join(root, c))) ?? candidates[0]!;
  const path = join(root, rel);
  if (!present(path)) return { path: rel, exists: false, text: null, value: {} };
  const text = readFileSync(path, "utf8");
  const errors: ParseError[] = [];
  const value: unknown = text.trim() === "" ? {} : parse(text, errors, { allowTrailingComma: true });
  const problem = errors[0]
    ? `${printParseErrorCode(errors[0].error)} at line ${lineOf(text, errors[0].offset)}`
    : typeof value !== "object" || value === null || Array.isArray(value)
      ? "the top level must be an object"
      : shapeProblem(value as Json);
  if (problem) {
    throw new FileFormatError(
      "STATE_SCHEMA",
      path,
      `${path}: not an opencode config Baton can extend (${problem})`,
      {
        hint: "Fix the file by hand (opencode would reject it too); nothing was written.",
      },
    );
  }
  return { path: rel, exists: true, text, value: value as Json };
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

function shapeProblem(value: Json): string | null {
  const permission = value["permission"];
  if (permission === undefined || typeof permission === "string") return null;
  if (typeof permission !== "object" || permission === null || Array.isArray(permission))
    return '"permission" must be an object or "allow" | "ask" | "deny"';
  const edit = (permission as Json)["edit"];
  if (edit === undefined || (typeof edit === "string" && PERMISSION_ACTIONS.has(edit))) return null;
  if (typeof edit !== "object" || edit === null || Array.isArray(edit))
    return '"permission.edit" must be an object of path patterns or "allow" | "ask" | "deny"';
  return null;
}

function formatting(text: string | null): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text ?? "")?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text?.includes("\r\n") ? "\r\n" : "\n",
  };
}

function set(text: string, path: string[], value: unknown): string {
  return applyEdits(text, modify(text, path, value, { formattingOptions: formatting(text) }));
}

export interface OpencodeConfigInstall {
  after: string;
  changed: boolean;
  record: OpencodeConfigRecord;
}

/**
 * Adds a deny rule per pattern to `permission.edit`. A pattern the user already denies is theirs and
 * is not recorded; one the user set to another action is overridden and its action recorded, so
 * uninstall gives it back. A global `permission` or `permission.edit` action becomes the `*` rule
 * (opencode's last matching rule wins, so `*` first, Baton's after), recorded likewise.
 */
export function planOpencodeConfigInstall(
  file: OpencodeConfigFile,
  patterns: string[],
  previous: OpencodeConfigRecord | undefined,
  /** `baton init --mcp`: the command that starts `baton mcp`, set as the local server `mcp.baton`. */
  mcpServer: string[] | null = null,
): OpencodeConfigInstall {
  // What the user's file is without Baton: the text Baton found, while the file is as Baton left it;
  // else Baton's own rules taken out of it. Re-running is then idempotent.
  const unchanged = previous?.afterSha256 !== undefined && previous.afterSha256 === sha256(file.text ?? "");
  const users =
    unchanged && previous?.original !== undefined
      ? previous.original
      : file.text !== null && previous
        ? removeRules(file.text, previous)
        : file.text;
  let text = users === null || users.trim() === "" ? "{}\n" : users;
  const value = parse(text, [], { allowTrailingComma: true }) as Json;
  const created = previous?.created ?? !file.exists;
  const record: OpencodeConfigRecord = {
    path: file.path,
    created,
    rules: [],
    ...(created || users === null ? {} : { original: users }),
  };
  let permission = value["permission"];
  if (permission === undefined) record.madePermission = true;
  if (typeof permission === "string") {
    record.permissionWas = permission;
    text = set(text, ["permission"], { "*": permission });
    permission = { "*": permission };
  }
  let edit = (permission as Json | undefined)?.["edit"];
  if (edit === undefined) record.madeEdit = true;
  if (typeof edit === "string") {
    record.editWas = edit;
    text = set(text, ["permission", "edit"], { "*": edit });
    edit = { "*": edit };
  }
  const rules = (edit ?? {}) as Json;
  for (const pattern of patterns) {
    const was = rules[pattern];
    if (was === "deny") continue;
    text = set(text, ["permission", "edit", pattern], "deny");
    record.rules.push(typeof was === "string" ? { pattern, was } : { pattern });
  }
  if (mcpServer) text = addMcpServer(text, value, mcpServer, record);
  record.afterSha256 = sha256(text);
  return { after: text, changed: text !== file.text, record };
}

/** `mcp.baton` as a local server, what it replaced recorded so uninstall gives it back. */
function addMcpServer(text: string, value: Json, command: string[], record: OpencodeConfigRecord): string {
  const mcp = value["mcp"];
  if (mcp === undefined) record.madeMcp = true;
  const was = typeof mcp === "object" && mcp !== null ? (mcp as Json)["baton"] : undefined;
  if (was !== undefined) record.mcpWas = was;
  record.mcpServer = true;
  return set(text, ["mcp", "baton"], { type: "local", command, enabled: true });
}

/** Takes Baton's rules out again, giving back what they replaced and dropping what it created. */
function removeRules(text: string, recorded: OpencodeConfigRecord): string {
  const read = (t: string) => parse(t, [], { allowTrailingComma: true }) as Json;
  const editOf = (t: string) => (read(t)["permission"] as Json | undefined)?.["edit"];
  let out = text;
  const edit = editOf(out);
  for (const rule of recorded.rules) {
    if (typeof edit !== "object" || edit === null || (edit as Json)[rule.pattern] !== "deny") continue;
    out = set(out, ["permission", "edit", rule.pattern], rule.was);
  }
  const left = editOf(out);
  if (typeof left === "object" && left !== null) {
    const keys = Object.keys(left);
    if (recorded.editWas !== undefined && keys.length === 1 && (left as Json)["*"] === recorded.editWas)
      out = set(out, ["permission", "edit"], recorded.editWas);
    else if (recorded.madeEdit && keys.length === 0) out = set(out, ["permission", "edit"], undefined);
  }
  if (recorded.mcpServer) {
    out = set(out, ["mcp", "baton"], recorded.mcpWas);
    const mcp = read(out)["mcp"];
    if (recorded.madeMcp && typeof mcp === "object" && mcp !== null && Object.keys(mcp).length === 0)
      out = set(out, ["mcp"], undefined);
  }
  const permission = read(out)["permission"];
  if (typeof permission === "object" && permission !== null) {
    const keys = Object.keys(permission);
    if (
      recorded.permissionWas !== undefined &&
      keys.length === 1 &&
      (permission as Json)["*"] === recorded.permissionWas
    )
      out = set(out, ["permission"], recorded.permissionWas);
    else if (recorded.madePermission && keys.length === 0) out = set(out, ["permission"], undefined);
  }
  return out;
}

/** The file without Baton's rules; null when Baton created it and nothing else is left in it. */
export function planOpencodeConfigUninstall(
  file: OpencodeConfigFile,
  recorded: OpencodeConfigRecord,
): string | null {
  if (file.text === null) return null;
  // Untouched since Baton wrote it: the user's exact bytes come back, comments and layout included.
  if (recorded.original !== undefined && recorded.afterSha256 === sha256(file.text)) return recorded.original;
  const after = removeRules(file.text, recorded);
  const value = parse(after, [], { allowTrailingComma: true }) as Json;
  return recorded.created && Object.keys(value).length === 0 ? null : after;
}
