import { FileFormatError } from "../shared/errors.js";

/**
 * Something in a task store that Baton reads around instead of refusing the whole file: real stores carry
 * entries written by hand, by other tools and by older versions of the original system (format reference,
 * and the compatibility corpus of `npm run compat:history`). Every other entry stays readable and
 * writable; the irregular one is read as well as it can be, shown marked, and a write that would change
 * it is refused until it is fixed.
 */
export type IrregularityCode =
  | "FIELD_TYPE"
  | "FIELD_MISSING"
  | "NUMBER_TWICE"
  | "NO_NUMBER"
  | "NO_STATUS_LINE"
  | "EMPTY_TITLE"
  | "ENTRY_TWICE"
  | "FIELD_STYLE"
  | "FRONTMATTER_OPEN";

export interface Irregularity {
  code: IrregularityCode;
  file: string;
  /** 1-based line in `file`, when known. */
  line?: number;
  /** The task the entry is for, when it has a number. */
  task?: number;
  /** What is irregular, in a sentence. */
  message: string;
  /** The exact repair: what `doctor --fix` does when `fixable`, else what to change by hand. */
  fix: string;
  fixable: boolean;
  /** Whether a write may still change the entry (a style Baton reads and writes back as it is). */
  writable: boolean;
}

export function describeIrregularity(irregularity: Irregularity): string {
  const where = `${irregularity.file}${irregularity.line ? `:${irregularity.line}` : ""}`;
  return `${where}: ${irregularity.message}`;
}

/** The refusal of a write that would have to change an entry Baton could only partly read. */
export function irregularEntryError(irregularity: Irregularity): FileFormatError {
  return new FileFormatError(
    "IRREGULAR_ENTRY",
    irregularity.file,
    `${describeIrregularity(irregularity)}; this command would change that entry, so it was refused`,
    {
      hint: `${irregularity.fixable ? "Run `baton doctor --fix`, or by hand: " : "By hand: "}${irregularity.fix}. Nothing was written.`,
    },
  );
}
