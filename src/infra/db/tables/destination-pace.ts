/** A destination being slowed down after a throttling reply (src/domain/delivery/pacing/store.ts). */
export interface DestinationPaceTable {
  destination: string;
  strikes: number;
  paused_until: number;
  rate_per_minute: number;
  ceiling_per_minute: number;
  throttled_at: number;
  last_reply: string;
  updated_at: number;
}
