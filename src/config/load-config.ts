import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { CONFIG_FILE_NAMES } from "../shared/baton-paths.js";
import { ConfigError, formatIssues, validationIssues } from "../shared/index.js";
import {
  ApprovalsConfig,
  type BatonConfig,
  BatonConfigFile,
  BudgetsConfig,
  CheckConfig,
  LanguageRoute,
  LintConfig,
  SlugRules,
} from "./config-schema.js";
import {
  DEFAULT_LANGUAGES,
  DEFAULT_PHASE_ROUTING,
  DEFAULT_ROUTING,
  DEFAULT_TIMEOUTS_MS,
} from "./defaults.js";
import { learnArtifactNaming } from "./naming-convention.js";

export { CONFIG_FILE_NAMES };

import { everyOperation } from "../shared/per-operation.js";
import { present } from "../shared/present.js";
import { findRepoRoot } from "./repo-root.js";

export { findRepoRoot };

async function parseConfigText(path: string, text: string): Promise<unknown> {
  if (path.endsWith(".json")) {
    const { parseJsonDocument } = await import("../shared/json-document.js");
    try {
      return parseJsonDocument(path, text).value;
    } catch (error) {
      throw new ConfigError(error instanceof Error ? error.message : String(error), { cause: error });
    }
  }
  const { parseYaml } = await import("./yaml.js");
  const parsed = parseYaml(text);
  if (parsed.error) {
    const { line, column, message } = parsed.error;
    const where = line === undefined ? path : `${path}:${line}:${column}`;
    throw new ConfigError(`${where}: invalid YAML (${message})`);
  }
  return parsed.value;
}

export async function loadConfig(cwd: string): Promise<BatonConfig> {
  const root = findRepoRoot(cwd);
  const found = CONFIG_FILE_NAMES.map((name) => join(root, name)).filter((p) => present(p));
  if (found.length > 1) {
    throw new ConfigError(`both ${found.join(" and ")} exist`, {
      hint: "Keep one config file and delete the other.",
    });
  }
  const source = found[0] ?? null;
  let file: BatonConfigFile = {};
  if (source) {
    const raw = await parseConfigText(source, readFileSync(source, "utf8"));
    const issues = validationIssues(BatonConfigFile, raw ?? {});
    if (issues) {
      throw new ConfigError(`${source}: ${formatIssues(issues)}`, {
        hint: `Allowed keys${issues[0]?.path.length ? ` in ${String(issues[0].path[0])}` : ""}: ${allowedKeysAt(issues[0]?.path ?? []).join(", ")}.`,
      });
    }
    file = (raw ?? {}) as BatonConfigFile;
  }
  return resolveConfig(root, source, file);
}

/** The keys the schema accepts where an issue points, for the hint under an "unknown key" error. */
function allowedKeysAt(path: ReadonlyArray<PropertyKey>): string[] {
  if (path[0] === "slug") return Object.keys(SlugRules.def.shape);
  if (path[0] === "lint") return Object.keys(LintConfig.def.shape);
  if (path[0] === "budgets") return Object.keys(BudgetsConfig.def.shape);
  if (path[0] === "approvals") return Object.keys(ApprovalsConfig.def.shape);
  if (path[0] === "checks" && path.length >= 2) return Object.keys(CheckConfig.def.shape);
  if (path[0] === "routing" && path.length >= 2) return Object.keys(LanguageRoute.def.shape);
  return Object.keys(BatonConfigFile.def.shape);
}

/** The routing table: Baton's defaults, each language's configured routes over them. */
function resolveRouting(
  source: string | null,
  file: BatonConfigFile,
  languages: string[],
): BatonConfig["routing"] {
  const routing: BatonConfig["routing"] = { ...DEFAULT_ROUTING };
  const fallback = DEFAULT_ROUTING["general"]!;
  for (const [language, route] of Object.entries(file.routing ?? {})) {
    if (!languages.includes(language)) {
      throw new ConfigError(`${source}: routing.${language}: "${language}" is not a configured language`, {
        hint: `Add it to "languages" (${languages.join(", ")}).`,
      });
    }
    const base = routing[language] ?? fallback;
    routing[language] = everyOperation((operation) => route[operation] ?? base[operation]);
  }
  return routing;
}

/** How plan runs go: phases at once, iterations, summaries, and how phases route. */
function resolvePhases(file: BatonConfigFile): BatonConfig["phases"] {
  return {
    concurrency: file.phases?.concurrency ?? 4,
    maxIterations: file.phases?.maxIterations ?? 5,
    minSummaryBytes: file.phases?.minSummaryBytes ?? 100,
    implementers: {
      lean: file.phases?.implementers?.lean ?? "lean",
      software: file.phases?.implementers?.software ?? "general",
    },
    routing: file.phases?.routing ?? DEFAULT_PHASE_ROUTING,
  };
}

function artifactNaming(
  file: BatonConfigFile,
  specsDir: string,
): Pick<BatonConfig, "artifactNaming" | "artifactNamingFrom"> {
  if (file.artifactNaming) return { artifactNaming: file.artifactNaming, artifactNamingFrom: "config" };
  const learned = learnArtifactNaming(specsDir);
  return learned
    ? { artifactNaming: learned, artifactNamingFrom: "repository" }
    : { artifactNaming: "v1", artifactNamingFrom: "default" };
}

/**
 * The runner when the config names none: opencode in a repository that keeps only opencode's tree (an
 * `.opencode/` folder or `opencode.json[c]`, no `.claude/`), Claude Code otherwise.
 */
function learnRunner(root: string): BatonConfig["runner"] {
  const opencode = [".opencode", "opencode.json", "opencode.jsonc"].some((name) => present(join(root, name)));
  return opencode && !present(join(root, ".claude")) ? { type: "opencode" } : { type: "claude" };
}

export function resolveConfig(root: string, source: string | null, file: BatonConfigFile): BatonConfig {
  const languages = file.languages ?? DEFAULT_LANGUAGES;
  const defaultLanguage = file.defaultLanguage ?? "general";
  if (!languages.includes(defaultLanguage)) {
    throw new ConfigError(`${source}: defaultLanguage "${defaultLanguage}" is not in languages`, {
      hint: `Add it to "languages" or pick one of: ${languages.join(", ")}.`,
    });
  }
  const routing = resolveRouting(source, file, languages);
  const specsDir = file.specsDir ?? "specs";
  const config: Omit<BatonConfig, "artifactNaming" | "artifactNamingFrom"> = {
    root,
    source,
    specsDir: isAbsolute(specsDir) ? specsDir : join(root, specsDir),
    languages,
    defaultLanguage,
    routing,
    taskTypeKey: file.taskTypeKey,
    taskTypeField: file.taskTypeField,
    slug: { maxLength: file.slug?.maxLength ?? 50, separator: file.slug?.separator ?? "_" },
    newTaskPosition: file.newTaskPosition ?? "top",
    lockTimeoutMs: file.lockTimeoutMs ?? 30_000,
    runner: file.runner ?? learnRunner(root),
    timeoutsMs: everyOperation((operation) => file.timeoutsMs?.[operation] ?? DEFAULT_TIMEOUTS_MS[operation]),
    minArtifactBytes: file.minArtifactBytes ?? 200,
    commit: file.commit ?? true,
    phases: resolvePhases(file),
    checks: (file.checks ?? []).map((check) => ({
      name: check.name,
      run: check.run,
      timeoutMs: check.timeoutMs ?? 600_000,
      languages: check.languages ?? null,
      when: check.when ?? "both",
      report: check.report ?? null,
      format: check.format ?? "junit",
      holdout: check.holdout === undefined ? null : resolveHome(check.holdout),
      network: check.network ?? false,
    })),
    research: { sections: file.research?.sections ?? [] },
    lint: { disable: file.lint?.disable ?? [] },
    budgets: file.budgets ?? {},
    approvals: resolveApprovals(file),
    sandbox: file.sandbox ?? "bubblewrap",
  };
  return withLazyNaming(config, file);
}

/**
 * The naming is learned from the task folders only when something asks for it (an operation, doctor):
 * `task list` on 10,000 tasks never lists the folders.
 */
function withLazyNaming(
  config: Omit<BatonConfig, "artifactNaming" | "artifactNamingFrom">,
  file: BatonConfigFile,
): BatonConfig {
  let learned: Pick<BatonConfig, "artifactNaming" | "artifactNamingFrom"> | undefined;
  const naming = () => {
    learned ??= artifactNaming(file, config.specsDir);
    return learned;
  };
  return Object.defineProperties(config as BatonConfig, {
    artifactNaming: { get: () => naming().artifactNaming, enumerable: true },
    artifactNamingFrom: { get: () => naming().artifactNamingFrom, enumerable: true },
  });
}

/** `~/x` as the home folder's x; other paths as written. */
function resolveHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
}

function resolveApprovals(file: BatonConfigFile): BatonConfig["approvals"] {
  const implement = file.approvals?.implement;
  return {
    implement: implement === undefined ? {} : typeof implement === "string" ? { "*": implement } : implement,
    webhook: file.approvals?.webhook ?? null,
  };
}

/**
 * What the configuration committed at `commit` says of approvals (`baton verify` judges each result by the
 * configuration of its own commit); off when it had none. A file that does not read there is reported, not
 * guessed at: null.
 */
export async function approvalsAtCommit(
  root: string,
  commit: string,
): Promise<BatonConfig["approvals"] | null> {
  const { runGit } = await import("../shared/git.js");
  for (const name of CONFIG_FILE_NAMES) {
    const shown = await runGit(root, ["show", `${commit}:${name}`]);
    if (!shown.ok) continue;
    try {
      const raw = await parseConfigText(name, shown.stdout);
      const issues = validationIssues(BatonConfigFile, raw ?? {});
      return issues ? null : resolveApprovals((raw ?? {}) as BatonConfigFile);
    } catch {
      return null;
    }
  }
  return { implement: {}, webhook: null };
}
