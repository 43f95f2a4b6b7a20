import type { Rule } from "../../rule-types.js";
import { stateDoctor } from "./store-doctor.js";

export const stateRules: Rule[] = [stateDoctor];
