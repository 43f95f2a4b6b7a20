import {
  closest,
  type Finding,
  finding,
  keyLine,
  type LintFile,
  type LintModel,
  type Rule,
} from "../../../lint/index.js";
import { opencodeLintHost } from "../opencode-lint-host.js";
import { PERMISSION_ACTIONS } from "../opencode-words.js";

// Top-level keys of opencode's `Config` (opencode contract 3.3; SDK typings of 1.18/1.19).
const CONFIG_KEYS = new Set([
  "$schema",
  "model",
  "small_model",
  "default_agent",
  "subagent_depth",
  "provider",
  "agent",
  "mode",
  "command",
  "permission",
  "plugin",
  "mcp",
  "instructions",
  "formatter",
  "lsp",
  "tools",
  "share",
  "autoupdate",
  "disabled_providers",
  "enabled_providers",
  "snapshot",
  "watcher",
  "compaction",
  "experimental",
  "server",
  "shell",
  "skills",
  "username",
  "theme",
  "keybinds",
  "tui",
  "layout",
  "autoshare",
]);

/** Every permission leaf must be allow, ask or deny (a map of pattern → action, or one action). */
/** opencode's own config files among the linted ones. */
function opencodeConfigs(model: LintModel): LintFile[] {
  return model.files.filter(
    (f) => f.kind === "host-config" && model.hostOf(f.path).name === opencodeLintHost.name,
  );
}

function badPermissions(value: unknown, path: string, out: string[]): void {
  if (typeof value === "string") {
    if (!PERMISSION_ACTIONS.has(value)) out.push(`${path} = "${value}"`);
  } else if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) badPermissions(inner, `${path}.${key}`, out);
  } else {
    out.push(`${path} = ${JSON.stringify(value)}`);
  }
}

/** `opencode.json(c)`: JSON opencode can read, keys it knows, permissions it can apply. */
export const opencodeConfig: Rule = {
  id: "opencode/config",
  severity: "error",
  description:
    "opencode.json(c) that does not parse, has unknown top-level keys, or permissions other than allow/ask/deny",
  check(model) {
    const findings: Finding[] = [];
    for (const file of opencodeConfigs(model)) {
      const json = file.json;
      const first = json?.errors[0];
      if (first) {
        findings.push(
          finding(
            this,
            file.path,
            first.line,
            first.column,
            `${first.message}; opencode cannot start with this config`,
            "Fix the JSON (comments and trailing commas are allowed).",
          ),
        );
        continue;
      }
      const data = json?.data;
      if (!data || typeof data !== "object" || Array.isArray(data)) continue;
      const permission = (data as Record<string, unknown>)["permission"];
      const bad: string[] = [];
      if (permission !== undefined) badPermissions(permission, "permission", bad);
      for (const entry of bad) {
        findings.push(
          finding(
            this,
            file.path,
            keyLine(file.text, "permission"),
            1,
            `${entry}: opencode applies only "allow", "ask" or "deny"`,
            'Use "allow", "ask" or "deny" (or a map of pattern to one of them).',
          ),
        );
      }
    }
    return findings;
  },
};

/** Top-level keys of opencode.json(c) that opencode does not know: often a typo that silently does nothing. */
export const opencodeConfigKey: Rule = {
  id: "opencode/config-key",
  severity: "warning",
  description: "opencode.json(c) top-level keys opencode does not know",
  check(model) {
    const findings: Finding[] = [];
    for (const file of opencodeConfigs(model)) {
      const data = file.json?.data;
      if (!data || typeof data !== "object" || Array.isArray(data) || file.json?.errors.length) continue;
      for (const key of Object.keys(data)) {
        if (CONFIG_KEYS.has(key)) continue;
        const suggestion = closest(key, CONFIG_KEYS);
        findings.push(
          finding(
            this,
            file.path,
            keyLine(file.text, key),
            1,
            `unknown opencode config key \`${key}\`; opencode does not read it`,
            suggestion
              ? `Did you mean \`${suggestion}\`?`
              : "Remove it (the keys are listed at https://opencode.ai/config.json).",
          ),
        );
      }
    }
    return findings;
  },
};
