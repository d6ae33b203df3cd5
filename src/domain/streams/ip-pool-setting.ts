// The IpPool field of servers and streams, a mailroom extension (README, "Delivery"): the name of a pool of
// MAILROOM_IP_POOLS the mail leaves from; a stream's overrides its server's. Here rather than in
// delivery/ip-pools/ because delivery imports this area (unsubscribe headers) and servers does too.
import type { Config } from '../../infra/config-types.js';
import { ApiError, ErrorCode } from '../errors.js';

/**
 * The value to store: the pool's configured name, null to clear ("" clears), or undefined when the field
 * was not given (null means "not given", docs/reference/api-conventions.md). Names match in any case.
 */
export function ipPoolSetting(config: Config, value: unknown): string | null | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ApiError(ErrorCode.InvalidRequestFields, 'IpPool must be the name of an IP pool, or "" for none.');
  const name = value.trim();
  if (name === '') return null;
  const pool = config.ipPools.find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (pool) return pool.name;
  const known = config.ipPools.map((p) => p.name);
  throw new ApiError(
    ErrorCode.InvalidRequestFields,
    known.length === 0
      ? `IpPool '${name.slice(0, 100)}' is not configured: this mailroom has no IP pools (MAILROOM_IP_POOLS).`
      : `IpPool '${name.slice(0, 100)}' is not configured; the pools are: ${known.join(', ')}.`,
  );
}

/** A stream's IpPool: as above, and only for streams that send (an Inbound stream only receives). */
export function streamIpPool(config: Config, value: unknown, type: string): string | null | undefined {
  const v = ipPoolSetting(config, value);
  if (v && type === 'Inbound') throw new ApiError(ErrorCode.InvalidRequestFields, 'IpPool applies to streams that send; an Inbound stream only receives.');
  return v;
}
