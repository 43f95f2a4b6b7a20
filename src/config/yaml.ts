import { parseDocument } from "yaml";

type YamlError = { line: number | undefined; column: number | undefined; message: string };

/** Kept in its own module so the YAML parser is loaded only for YAML configs. */
export function parseYaml(text: string): { value: unknown; error?: YamlError } {
  const doc = parseDocument(text, { prettyErrors: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    return {
      value: undefined,
      error: { line: pos?.line, column: pos?.col, message: readable(first.message.split("\n")[0] ?? "") },
    };
  }
  try {
    // Aliases are expanded here: an alias bomb (each alias repeating the one before) is refused by
    // the parser's own count, a value nested too deep by the stack; either is named, not a crash.
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    const message = error instanceof RangeError ? "nested too deeply" : (error as Error).message;
    return { value: undefined, error: { line: undefined, column: undefined, message } };
  }
}

/** The parser's own words for a value nested past the stack say how it failed, not what is wrong. */
function readable(message: string): string {
  return /Maximum call stack/.test(message) ? "a value nested too deeply" : message;
}
