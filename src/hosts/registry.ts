import { HOST_NAMES, type HostName } from "../shared/host-names.js";
import { claudeCode } from "./claude-code/index.js";
import { codex } from "./codex/index.js";
import type { Host } from "./host.js";
import { opencode } from "./opencode/index.js";

/** Each host by its name (shared/host-names.ts): a name without its host does not compile. */
const BY_NAME: Readonly<Record<HostName, Host>> = { claude: claudeCode, opencode, codex };

/** Every host Baton works in, the primary one first. A new host is its name, its folder and one entry above. */
export const HOSTS: readonly Host[] = HOST_NAMES.map((name) => BY_NAME[name]);
