// Which database a connection talks to. Only src/infra/db compares it (test/structure/layer-rules.test.ts).
export type Dialect = 'sqlite' | 'postgres';
