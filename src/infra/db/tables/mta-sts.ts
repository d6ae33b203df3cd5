/** A recipient domain's MTA-STS policy as last fetched (src/domain/delivery/mta-sts/cache.ts). */
export interface MtaStsPoliciesTable {
  domain: string;
  policy_id: string;
  mode: string;
  /** JSON array of MX patterns. */
  mx: string;
  max_age: number;
  fetched_at: number;
  expires_at: number;
}
