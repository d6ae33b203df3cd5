// A statement's plan as text, for tests that assert which index a search reads (not how long it takes).
import { CompiledQuery, sql } from 'kysely';
import type { TestService } from './service.js';

/** The plan as text: SQLite's EXPLAIN QUERY PLAN details, or PostgreSQL's nodes with the parent of each partition's index. */
export async function explain(s: TestService, q: CompiledQuery): Promise<string> {
  if (s.ctx.database.dialect === 'sqlite') {
    const r = await s.ctx.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
    return r.rows.map((x) => x.detail).join('\n');
  }
  const parents = new Map(
    (await sql<{ child: string; parent: string }>`select c.relname as child, p.relname as parent from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent`.execute(s.ctx.db)).rows.map((r) => [r.child, r.parent]),
  );
  const r = await s.ctx.db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: Node }> }>(CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]));
  const out: string[] = [];
  const walk = (n: Node) => {
    const name = (x?: string) => (x ? (parents.get(x) ?? x) : '');
    out.push(JSON.stringify([n['Node Type'], name(n['Relation Name']), name(n['Index Name'])]));
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(r.rows[0]!['QUERY PLAN'][0]!.Plan);
  return out.join('\n');
}

interface Node {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: Node[];
}
