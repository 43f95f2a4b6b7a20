import { runGit } from "./git.js";

/** One object as git stores it: its id, type and bytes (after clean filters and line-ending conversion). */
export interface GitObject {
  oid: string;
  type: string;
  bytes: Buffer;
}

/**
 * Objects by name (an object id, or `<commit>:<path>`) through one `git cat-file --batch`, where each took
 * a process or three (`rev-parse`, `cat-file -s`, `cat-file blob`): a name git cannot resolve maps to null.
 * Null when git itself failed. A name holding a line break cannot be a batch line; it is resolved to its id
 * first, by a `rev-parse` of its own.
 */
export async function readObjects(
  cwd: string,
  names: readonly string[],
): Promise<Map<string, GitObject | null> | null> {
  const unique = [...new Set(names)];
  const lines = new Map<string, string | null>();
  for (const name of unique) lines.set(name, name.includes("\n") ? await objectId(cwd, name) : name);
  const asked = unique.filter((name) => lines.get(name) !== null);
  const found = new Map<string, GitObject | null>(unique.map((name) => [name, null]));
  if (asked.length === 0) return found;
  const result = await runGit(cwd, ["cat-file", "--batch"], {
    stdin: asked.map((name) => `${lines.get(name)}\n`).join(""),
    binary: true,
    env: { GIT_OPTIONAL_LOCKS: "0" },
  });
  if (!result.ok || !result.stdoutBytes) return null;
  const parsed = parseBatch(result.stdoutBytes, asked.length);
  if (parsed === null) return null;
  for (const [i, name] of asked.entries()) found.set(name, parsed[i] ?? null);
  return found;
}

async function objectId(cwd: string, name: string): Promise<string | null> {
  const id = await runGit(cwd, ["rev-parse", "--verify", "--quiet", name]);
  return id.ok ? id.stdout.trim() : null;
}

/** `<oid> <type> <size>\n<bytes>\n` per object found, `<name> missing\n` (or `ambiguous`) per one not. */
function parseBatch(out: Buffer, count: number): (GitObject | null)[] | null {
  const objects: (GitObject | null)[] = [];
  let at = 0;
  while (objects.length < count) {
    const end = out.indexOf(10, at);
    if (end < 0) return null;
    const header = out.subarray(at, end).toString("latin1");
    const found = /^([0-9a-f]{40,64}) (\S+) (\d+)$/.exec(header);
    if (!found) {
      if (!/ (missing|ambiguous)$/.test(header)) return null;
      objects.push(null);
      at = end + 1;
      continue;
    }
    const size = Number(found[3]);
    if (end + 1 + size > out.length) return null;
    objects.push({ oid: found[1]!, type: found[2]!, bytes: out.subarray(end + 1, end + 1 + size) });
    at = end + 1 + size + 1;
  }
  return objects;
}
