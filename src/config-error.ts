// What a bad setting stops the start with, and what the settings are read from.

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

export type Env = Record<string, string | undefined>;

export const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A whole number from `min` to `max`. */
export function wholeNumber(name: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v)) throw new ConfigError(name, `expected a whole number, got ${JSON.stringify(v)}`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}
