/**
 * Jaro-Winkler similarity (Winkler 1990: prefix scale 0.1, up to 4 prefix characters, boost only
 * above 0.7). Hand-written rather than imported: the matcher calls it hundreds of times per query,
 * and reusing two flag buffers keeps it allocation-free.
 */
let flagsA = new Uint8Array(64);
let flagsB = new Uint8Array(64);

export function jaro(a: string, b: string): number {
  if (a === b) return a.length ? 1 : 0;
  const la = a.length;
  const lb = b.length;
  if (!la || !lb) return 0;
  if (la > flagsA.length) flagsA = new Uint8Array(la * 2);
  if (lb > flagsB.length) flagsB = new Uint8Array(lb * 2);
  flagsA.fill(0, 0, la);
  flagsB.fill(0, 0, lb);
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const ch = a.charCodeAt(i);
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    for (let j = lo; j <= hi; j++) {
      if (!flagsB[j] && b.charCodeAt(j) === ch) {
        flagsA[i] = 1;
        flagsB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (!matches) return 0;
  let transpositions = 0;
  for (let i = 0, j = 0; i < la; i++) {
    if (!flagsA[i]) continue;
    while (!flagsB[j]) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) transpositions++;
    j++;
  }
  const m = matches;
  return (m / la + m / lb + (m - transpositions / 2) / m) / 3;
}

export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  if (j <= 0.7) return j;
  let prefix = 0;
  const max = Math.min(4, a.length, b.length);
  while (prefix < max && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return j + prefix * 0.1 * (1 - j);
}
