import type { Generated } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  created_at: number;
}

/** API credentials. Only a SHA-256 of the lowercased token is stored; `hint` shows its last characters. */
export interface ApiTokensTable {
  id: Generated<number>;
  kind: 'account' | 'server';
  account_id: number;
  server_id: number | null;
  token_hash: string;
  hint: string;
  created_at: number;
}
