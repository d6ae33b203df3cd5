// Which messages a queued job is about. Every area names them the same way in its payload (`messageId`, as
// in DeliverPayload; webhook payloads carry `MessageID`), at any depth, alone or in a list (`messageIds`).
const KEY = /^message_?ids?$/i;

export function collectMessageIds(payload: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (KEY.test(k)) {
        if (typeof x === 'string') out.push(x);
        else if (Array.isArray(x)) for (const y of x) if (typeof y === 'string') out.push(y);
      } else walk(x, depth + 1);
    }
  };
  walk(value, 0);
  return out;
}
