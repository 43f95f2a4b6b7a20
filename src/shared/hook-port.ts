/** Where `baton serve` listens and `baton init --hooks http` points Claude Code, unless told otherwise. */
export const DEFAULT_HOOK_PORT = 4891;
