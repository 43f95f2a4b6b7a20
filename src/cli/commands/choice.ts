import { UsageError } from "../../shared/index.js";

/** An option that takes one of a list of words: the word, or a usage error naming the flag and the list. */
export function oneOf<T extends string>(
  flag: string,
  choices: readonly T[],
  value: string | undefined,
): T | undefined {
  if (value === undefined) return undefined;
  const chosen = choices.find((choice) => choice === value);
  if (chosen !== undefined) return chosen;
  const quoted = choices.map((c) => `"${c}"`);
  const words = quoted.length > 1 ? `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}` : quoted.join("");
  throw new UsageError(`${flag} must be ${words}, got "${value}"`);
}
