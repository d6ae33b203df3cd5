/** When each periodic task is next due (src/infra/jobs/periodic-claim.ts). */
export interface PeriodicTasksTable {
  name: string;
  next_run_at: number;
  last_started_at: number | null;
}
