// Suppression reasons and origins (docs/reference/suppressions.md, "Suppression record").
//  ManualSuppression: added through the API (origin Customer) or by the recipient's unsubscribe (Recipient).
//  HardBounce, SpamComplaint: added by the bounce and complaint paths (origin Recipient).
export const SUPPRESSION_REASONS = ['ManualSuppression', 'HardBounce', 'SpamComplaint'] as const;
export const SUPPRESSION_ORIGINS = ['Recipient', 'Customer', 'Admin'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];
export type SuppressionOrigin = (typeof SUPPRESSION_ORIGINS)[number];

/** Addresses per create or delete call (docs/reference/api-conventions.md, "Limits"). */
export const MAX_SUPPRESSIONS_PER_CALL = 50;

/** Canonical spelling of a value given in any case, or null. */
export function canonical<T extends string>(values: readonly T[], given: string): T | null {
  return values.find((v) => v.toLowerCase() === given.trim().toLowerCase()) ?? null;
}
