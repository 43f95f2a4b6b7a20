import type { Rule } from "../../../lint/index.js";
import { missingScript } from "./missing-script.js";
import { notExecutable } from "./not-executable.js";
import { stopHookActive } from "./stop-hook-active.js";
import { swallowedErrors } from "./swallowed-errors.js";

/** Claude Code's hooks in its settings files, judged by what Claude Code does with them. */
export const claudeLintRules: Rule[] = [missingScript, notExecutable, stopHookActive, swallowedErrors];
