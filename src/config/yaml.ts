import { parseDocument } from "yaml";

/** Kept in its own module so the YAML parser is loaded only for YAML configs. */
export function parseYaml(text: string): {
  value: unknown;
  error?: { line: number | undefined; column: number | undefined; message: string };
} {
  const doc = parseDocument(text, { prettyErrors: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    return {
      value: undefined,
      error: { line: pos?.line, column: pos?.col, message: first.message.split("\n")[0] ?? "" },
    };
  }
  return { value: doc.toJS() };
}
