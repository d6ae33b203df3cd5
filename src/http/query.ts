// Query keys are matched case-insensitively (clients send `fromDate`, `Count`, `messageStream`): every key is
// lowercased before validation, so route schemas name their query keys in lowercase. The part after
// `metadata_` keeps its case, since metadata keys are the user's own.
export function parseQuery(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const lower = rawKey.toLowerCase();
    const key = lower.startsWith('metadata_') ? `metadata_${rawKey.slice(9)}` : lower;
    const prev = out[key];
    if (prev === undefined) out[key] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[key] = [prev, value];
  }
  return out;
}
