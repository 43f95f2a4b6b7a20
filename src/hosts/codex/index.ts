import type { Host } from "../host.js";
import { codexInstaller } from "./codex-installer.js";

/**
 * Codex CLI: Claude-Code-shaped command hooks in `.codex/hooks.json` guard the store in a Codex session;
 * Codex has no sub-agent tool, so it runs Baton's agents headless (the codex runner), never gate-in.
 */
export const codex: Host = {
  name: "codex",
  label: "Codex CLI",
  primary: false,
  installer: codexInstaller,
  agentFiles: null,
  lintHost: null,
  lintRules: [],
  installs: "Baton's hooks in .codex/hooks.json",
  firstUse:
    "In Codex: run `codex exec --trust --dangerously-bypass-hook-trust …` so its hooks run (docs/hosts.md).",
  contract: "src/hosts/codex/codex-contract.md",
};
