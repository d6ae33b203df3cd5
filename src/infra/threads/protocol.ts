// The messages between the pool (pool.ts) and its workers, and the worker's own program. The program is
// plain CommonJS evaluated in the worker (as sqlite-durability.ts does), so the same pool works from the
// compiled dist/ and from TypeScript sources under tsx: there it first registers tsx's loader, which a
// worker does not inherit. A task module exports functions `(input, call) => result`; `call(service, ...args)`
// asks the main thread for a service of the pool (DNS, for instance) and resolves with its answer.

export interface TaskRequest {
  type: 'task';
  id: number;
  module: string;
  fn: string;
  input: unknown;
}

export type HostMessage =
  | { type: 'done'; id: number; value: unknown }
  | { type: 'failed'; id: number; error: { name: string; message: string; fields: Record<string, unknown> } }
  | { type: 'call'; id: number; service: string; args: unknown[] };

/** What a task module's functions get to reach the main thread. */
export type CallMain = (service: string, ...args: unknown[]) => Promise<unknown>;

export const HOST_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Linux keeps a nice value per thread: this lowers the priority of this worker only, not the event loop's.
if (workerData.nice) {
  try {
    require('node:os').setPriority(workerData.nice);
  } catch {}
}
const ready = workerData.tsLoader ? import(workerData.tsLoader).then((m) => m.register()) : Promise.resolve();
const modules = new Map();
const calls = new Map();
let callSeq = 0;
function call(service, ...args) {
  const id = ++callSeq;
  return new Promise((resolve, reject) => {
    calls.set(id, { resolve, reject });
    parentPort.postMessage({ type: 'call', id, service, args });
  });
}
function fields(e) {
  const out = {};
  for (const [k, v] of Object.entries(e)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
  return out;
}
parentPort.on('message', (m) => {
  if (m.type === 'reply') {
    const c = calls.get(m.id);
    calls.delete(m.id);
    if (!c) return;
    if (m.error) c.reject(Object.assign(new Error(m.error.message), m.error.fields));
    else c.resolve(m.value);
    return;
  }
  let mod = modules.get(m.module);
  if (!mod) {
    mod = ready.then(() => import(m.module));
    modules.set(m.module, mod);
  }
  mod
    .then((ns) => ns[m.fn](m.input, call))
    .then(
      (value) => parentPort.postMessage({ type: 'done', id: m.id, value }),
      (err) => {
        const e = err instanceof Error ? err : new Error(String(err));
        parentPort.postMessage({ type: 'failed', id: m.id, error: { name: e.constructor && e.constructor.name || e.name, message: e.message, fields: fields(e) } });
      },
    );
});
`;
