/** The candidate closest to `name` (case, `_`/`-` and up to two edits apart), for "did you mean" hints. */
export function closest(name: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  const flat = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    if (flat(candidate) === flat(name)) return candidate;
    const distance = editDistance(flat(candidate), flat(name));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
