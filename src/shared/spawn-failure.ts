import { present } from "./present.js";
/** Why a process could not start, in words a user can act on. */
export function spawnFailure(command: string, cwd: string, error: unknown): string {
  // Node reports a missing working directory as the command missing (`spawn x ENOENT`).
  if (!present(cwd)) return `could not start ${command}: working directory ${cwd} does not exist`;
  const text = error instanceof Error ? error.message : String(error);
  // The kernel refuses one argument or variable over 128 KiB, and all of them together over its ARG_MAX.
  const tooLong =
    (error as NodeJS.ErrnoException | null)?.code === "E2BIG"
      ? ": an argument or environment variable is over the kernel's limit (128 KiB); pass it on stdin or in a file"
      : "";
  return `could not start ${command}: ${text}${tooLong}`;
}
