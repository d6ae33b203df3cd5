// The resolvers, and the domains sending domains' DNS records must point at.
// One area of the settings table (infra/settings-table.ts, which puts the areas in order); docs/settings.md
// shows the rows in this order.
import type { Setting } from './setting.js';

export const DNS_SETTINGS = {
  MAILROOM_DNS_SERVERS: {
    area: 'DNS and domains',
    default: 'system',
    description: '`ip[:port],...` used for MX lookups and DNS verification',
    kind: { type: 'dns-servers' },
    field: 'dnsServers',
  },
  MAILROOM_RETURN_PATH_DOMAIN: {
    area: 'DNS and domains',
    default: 'bounces.localhost',
    description: 'envelope domain for bounces, and the CNAME target a custom Return-Path must point at',
    kind: { type: 'hostname', fallback: 'bounces.localhost' },
    field: 'returnPathDomain',
  },
  MAILROOM_SPF_INCLUDE: {
    area: 'DNS and domains',
    default: 'spf.<return path domain>',
    description: 'the include SPF verification expects',
    kind: { type: 'hostname' },
    field: 'spfInclude',
    derive: (get) => `spf.${String(get('MAILROOM_RETURN_PATH_DOMAIN'))}`,
  },
} as const satisfies Record<`MAILROOM_${string}`, Setting>;
