/**
 * How a host starts `baton mcp`: `bin` is the shell command `baton init` resolved (`baton`, or node with the
 * script's path, quoted), so anything but the plain name goes through /bin/sh.
 */
export function mcpCommand(bin: string): { command: string; args: string[] } {
  return bin === "baton"
    ? { command: "baton", args: ["mcp"] }
    : { command: "sh", args: ["-c", `${bin} mcp`] };
}
