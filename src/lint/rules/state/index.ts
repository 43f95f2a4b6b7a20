import type { Rule } from "../../types.js";
import { stateDoctor } from "./doctor.js";

export const stateRules: Rule[] = [stateDoctor];
