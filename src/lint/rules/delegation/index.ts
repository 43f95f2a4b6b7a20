import type { Rule } from "../../rule-types.js";
import { conditionalDelegation } from "./conditional-delegation.js";
import { directStateWrite } from "./direct-state-write.js";
import { instructedStoreWrite } from "./instructed-store-write.js";
import { returnsCompleted } from "./returns-completed.js";
import { simulatedDelegation } from "./simulated-delegation.js";
import { twinCommands } from "./twin-commands.js";
import { unverifiedDelegation } from "./unverified-delegation.js";

export const delegationRules: Rule[] = [
  simulatedDelegation,
  directStateWrite,
  instructedStoreWrite,
  twinCommands,
  unverifiedDelegation,
  conditionalDelegation,
  returnsCompleted,
];
