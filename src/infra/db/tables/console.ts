import type { Generated } from 'kysely';

/** People who sign in to the web console. */
export interface ConsoleUsersTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  role: 'admin' | 'viewer';
  password_hash: string;
  created_at: number;
}

export interface ConsoleSessionsTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

export interface ConsoleLoginFailuresTable {
  id: Generated<number>;
  email: string;
  occurred_at: number;
}
