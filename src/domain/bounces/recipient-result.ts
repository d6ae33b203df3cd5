// What a report says about one recipient: the common result of the DSN, ARF and plain-bounce parsers
// (parse-report.ts, plain-bounce.ts).
export interface RecipientResult {
  /** The failed recipient as reported (Final-Recipient, Original-Rcpt-To, ...), or null when not named. */
  email: string | null;
  action: string | null;
  status: string | null;
  diagnostic: string | null;
  remoteMta: string | null;
  type: string;
  permanent: boolean;
  /** Short human-readable text for the bounce record's Details. */
  details: string;
}
