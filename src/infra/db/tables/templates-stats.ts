import type { Generated } from 'kysely';
import type { WithDefault } from './defaults.js';

/** Standard and Layout templates (docs/reference/templates.md). */
export interface TemplatesTable {
  id: Generated<number>;
  server_id: number;
  name: string;
  alias: string | null;
  /** alias lowercased: aliases are unique per server regardless of case. */
  alias_key: string | null;
  subject: string | null;
  html_body: string | null;
  text_body: string | null;
  /** Standard | Layout */
  template_type: string;
  /** Alias of the layout a Standard template is wrapped in. */
  layout_template: string | null;
  active: WithDefault<number>;
  created_at: number;
  updated_at: number;
}

/**
 * Permanent daily statistics counters (docs/reference/api-conventions.md, "General rules" 4); see
 * src/domain/stats/counters.ts.
 */
export interface StatsDailyTable {
  server_id: number;
  stream_id: string;
  /** '' when the message has no tag. */
  tag: string;
  /** Moscow calendar day, YYYY-MM-DD. */
  day: string;
  metric: string;
  shard: number;
  value: number;
}
