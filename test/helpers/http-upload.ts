// A large request body through node:http instead of fetch. A server may answer a request before it has read
// the whole body (RFC 9112 9.3; mailroom answers 413 as soon as the Content-Length is over the limit and
// drains the rest): node:http hands that early answer over once it arrives, while undici's fetch, still
// writing, reported it as a reset connection under load (ECONNRESET: the tests' flake, not the server's).
import { request } from 'node:http';

export interface Uploaded {
  status: number;
  text: string;
  headers: Headers;
}

export function upload(url: string, method: string, headers: Record<string, string>, body: string | Buffer): Promise<Uploaded> {
  return new Promise((resolve, reject) => {
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    const req = request(url, { method, headers: { ...headers, 'content-length': String(data.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: h });
      });
      res.on('error', reject);
    });
    // A write cut short after the answer came (the server closed once it had answered) is not the outcome.
    req.on('error', reject);
    req.end(data);
  });
}
