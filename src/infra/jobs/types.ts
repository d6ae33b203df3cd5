export interface Job {
  id: number;
  queue: string;
  payload: string;
  run_at: number;
  attempts: number;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  group_key: string | null;
  created_at: number;
  message_id: string | null;
}
