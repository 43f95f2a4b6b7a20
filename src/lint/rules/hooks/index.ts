import type { Rule } from "../../types.js";
import { missingScript } from "./missing-script.js";
import { notExecutable } from "./not-executable.js";
import { stopHookActive } from "./stop-hook-active.js";
import { swallowedErrors } from "./swallowed-errors.js";

export const hooksRules: Rule[] = [missingScript, notExecutable, stopHookActive, swallowedErrors];
