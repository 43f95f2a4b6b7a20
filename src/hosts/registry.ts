import { claudeCode } from "./claude-code/index.js";
import { codex } from "./codex/index.js";
import type { Host } from "./host.js";
import { opencode } from "./opencode/index.js";

/** Every host Baton works in, the primary one first. A new host is its folder and one line here. */
export const HOSTS: readonly Host[] = [claudeCode, opencode, codex];
