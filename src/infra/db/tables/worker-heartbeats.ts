export interface WorkerHeartbeatsTable {
  worker_id: string;
  host: string;
  pid: number;
  started_at: number;
  beat_at: number;
}
