// Custom Return-Path check: the host must be a CNAME to the service's bounce domain, so that bounces sent
// to the custom envelope domain reach mailroom's inbound SMTP listener.
import type { Resolver } from 'node:dns/promises';
import { lookupCname } from './lookup.js';

export type CheckResult = 'pass' | 'fail' | 'error';

export async function checkCname(dns: Resolver, host: string, target: string): Promise<CheckResult> {
  const r = await lookupCname(dns, host);
  if (r.kind === 'error') return 'error';
  if (r.kind === 'none') return 'fail';
  return r.value === target.toLowerCase().replace(/\.$/, '') ? 'pass' : 'fail';
}
