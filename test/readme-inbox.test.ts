// README, "Use mailroom as your test inbox": its two files (an app sending through the Postmark client, and
// a node:test test waiting for the welcome mail with the mailpit-api client) copied out as a newcomer would,
// and run with `node --test` against a service with a Sandbox server, over real HTTP.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addConfirmedSender } from './helpers/senders.js';
import { startService, type TestService } from './helpers/service.js';

const root = new URL('..', import.meta.url).pathname;

/** The ```js blocks of the section, keyed by the file name their first comment line gives. */
function snippets(): Map<string, string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Use mailroom as your test inbox');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  const out = new Map<string, string>();
  for (const block of section.split('```js\n').slice(1)) {
    const code = block.slice(0, block.indexOf('```'));
    const name = /^\/\/ ([\w.-]+\.mjs):/.exec(code)?.[1];
    if (name) out.set(name, code);
  }
  return out;
}

describe("README's test inbox example", () => {
  let s: TestService;
  let token: string;
  // Inside the repository, so that the files' imports resolve to its node_modules as in an app's.
  const dir = mkdtempSync(join(root, 'test', '.readme-inbox-'));
  before(async () => {
    s = await startService();
    await addConfirmedSender(s, 'hello@shop.example');
    const r = await s.request('POST', '/servers', { accountToken: s.accountToken, body: { Name: 'CI', DeliveryType: 'Sandbox' } });
    assert.equal(r.status, 200, r.text);
    token = r.body.ApiTokens[0];
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  });

  it('runs as written and passes', async () => {
    const files = snippets();
    assert.deepEqual([...files.keys()].sort(), ['mailer.mjs', 'welcome.test.mjs']);
    for (const [name, code] of files) writeFileSync(join(dir, name), code);
    const child = spawn(process.execPath, ['--test', 'welcome.test.mjs'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', MAILROOM_HOST: s.url.replace(/^http:\/\//, ''), POSTMARK_SERVER_TOKEN: token },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    assert.equal(code, 0, output);
    assert.match(output, /# pass 1/);
    // The test cleaned up after itself through the API.
    const left = await fetch(`${s.url}/mailpit/api/v1/messages`, { headers: { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` } });
    assert.equal(((await left.json()) as { total: number }).total, 0);
  });
});
