// Counts kept in a Map by key (connections per client, jobs per queue or group), where a key whose count
// falls to zero is dropped, so the map holds only what is in use and never grows with past keys.

/** Adds `by` (negative to take away) to the count of `key`, dropping the key at zero. */
export function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
