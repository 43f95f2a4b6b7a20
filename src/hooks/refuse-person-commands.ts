import { PERSON_COMMANDS } from "../shared/person-commands.js";

/**
 * Why a Bash tool call may not run: it runs one of the commands only a person may (`baton approve`, `baton
 * reject`), in any spelling of Baton (`bin` as init recorded it, `baton`, a path to its script). Null when it
 * runs none. What stops other forms is Claude Code's sandbox (the store is read-only there); this names the
 * way that works instead.
 */
export function personOnlyCommand(command: string, bin: string): string | null {
  const quoted = bin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const baton = `(?:${quoted}|\\S*baton(?:\\.js)?'?)`;
  const pattern = new RegExp(`(?:^|[\\s;&|(\`])${baton}\\s+(${PERSON_COMMANDS.join("|")})(?=\\s|$|[;&|)])`);
  const found = pattern.exec(command);
  if (!found) return null;
  return `Refused: only the person answers for a plan, never the model. Ask them to type \`/${found[1]} <task>\` themselves (or run \`baton ${found[1]}\` in their own terminal, or use the dashboard); do not try another way.`;
}
