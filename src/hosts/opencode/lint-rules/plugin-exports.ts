import { type Finding, finding, type Rule } from "../../../lint/index.js";

// `export const X = …` whose value is a function: `async (`, `(`, `function`, `name =>`, `async name =>`.
const FUNCTION_VALUE = /^(?:async\s+)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/;
const EXPORT_BINDING = /^export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(.*)$/;
const EXPORT_OTHER = /^export\s+(class|enum)\s+([A-Za-z_$][\w$]*)/;

/**
 * opencode imports every script of `.opencode/plugin/` and calls every export as a plugin: an export that
 * is not a function makes it throw `Plugin export is not a function`, and none of the file's hooks load
 * (opencode contract 5.1). Constants and helpers belong in another module the plugin imports.
 */
export const pluginExports: Rule = {
  id: "opencode/plugin-exports",
  severity: "error",
  description: "opencode plugin files with an export that is not a plugin function",
  check(model) {
    const findings: Finding[] = [];
    for (const file of model.files.filter((f) => f.kind === "plugin")) {
      file.lines.forEach((text, i) => {
        const binding = EXPORT_BINDING.exec(text.trim());
        const other = EXPORT_OTHER.exec(text.trim());
        const name = binding && !FUNCTION_VALUE.test(binding[2]!.trim()) ? binding[1] : other?.[2];
        if (!name) return;
        findings.push(
          finding(
            this,
            file.path,
            i + 1,
            1,
            `export \`${name}\` is not a function; opencode calls every export of a plugin file and refuses this one ("Plugin export is not a function"), so none of the file's hooks load`,
            "Export only plugin functions; move other values into a module the plugin imports.",
          ),
        );
      });
    }
    return findings;
  },
};
