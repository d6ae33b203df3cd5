// The black-hole bounce-testing domain (the hosted service's guide "Generate fake bounces"): mail to it is never
// delivered; each recipient produces the bounce its address names, as if the remote server had answered. The
// hosted service's own domain works, so an application's existing tests work unchanged, and
// MAILROOM_BOUNCE_TESTING_DOMAIN names one more. The guide: an address per bounce type (HardBounce@,
// SoftBounce@, Transient@, Blocked@, ...), case-insensitive, camel case or with underscores
// (Hard_Bounce@); every published type except SpamComplaint; any other address is a HardBounce; the header
// X-PM-Bounce-Type names the type for every recipient at the domain.
import type { Config } from '../../infra/config-types.js';
import { BOUNCE_TYPES } from '../bounces/types.js';

export const HOSTED_BOUNCE_TESTING_DOMAIN = 'bounce-testing.postmarkapp.com';
export const BOUNCE_TYPE_HEADER = 'x-pm-bounce-type';
const DEFAULT_TYPE = 'HardBounce';

/** Lowercase letters and digits only: `Hard_Bounce`, `hard-bounce` and `HARDBOUNCE` all read `hardbounce`. */
const squeeze = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The types a fake bounce can take, by squeezed name. SpamComplaint is not one (the guide excludes it). */
const FAKE_TYPES = new Map(
  Object.keys(BOUNCE_TYPES)
    .filter((t) => t !== 'SpamComplaint')
    .map((t) => [squeeze(t), t]),
);

export function isBounceTestingDomain(config: Pick<Config, 'bounceTestingDomain'>, domain: string): boolean {
  const d = domain.toLowerCase();
  return d === HOSTED_BOUNCE_TESTING_DOMAIN || (config.bounceTestingDomain !== null && d === config.bounceTestingDomain);
}

export function isBounceTestingAddress(config: Pick<Config, 'bounceTestingDomain'>, email: string): boolean {
  return isBounceTestingDomain(config, email.slice(email.lastIndexOf('@') + 1));
}

/**
 * The bounce type a recipient at the bounce-testing domain produces: the X-PM-Bounce-Type header when it names
 * a type, else the address's local part (a `+tag` is ignored, a mailroom addition so that a test can use a
 * fresh address each run: a HardBounce suppresses the address it names), else HardBounce.
 */
export function fakeBounceType(email: string, headers: ReadonlyArray<{ Name: string; Value: string }>): string {
  const header = headers.find((h) => h.Name.toLowerCase() === BOUNCE_TYPE_HEADER);
  const byHeader = header ? FAKE_TYPES.get(squeeze(header.Value.slice(0, 100))) : undefined;
  if (byHeader) return byHeader;
  const local = email.slice(0, email.lastIndexOf('@'));
  const plus = local.indexOf('+');
  return FAKE_TYPES.get(squeeze((plus < 0 ? local : local.slice(0, plus)).slice(0, 100))) ?? DEFAULT_TYPE;
}
