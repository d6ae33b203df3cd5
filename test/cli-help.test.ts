// tier: unit
// `mailroom COMMAND --help` prints that command's usage, and the overview names `server add` and how to run
// the program from a clone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { cliArgs } from './helpers/process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const cli = (...args: string[]) => spawnSync(process.execPath, [...cliArgs(), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_NO_WARNINGS: '1' }, timeout: 60_000 });

describe('CLI help', () => {
  it('prints each command\'s own usage with --help, and the overview otherwise', () => {
    const serve = cli('serve', '--help');
    assert.equal(serve.status, 0, serve.stderr);
    assert.match(serve.stdout, /^Usage: mailroom serve \[--role all\|api\|worker\]/);
    const server = cli('help', 'server');
    assert.equal(server.status, 0, server.stderr);
    assert.match(server.stdout, /^Usage: mailroom server add NAME \[--sandbox\]/);
    const all = cli('--help');
    assert.equal(all.status, 0);
    assert.match(all.stdout, /mailroom server add NAME \[--sandbox\]/);
    assert.match(all.stdout, /node dist\/cli\.js/);
  });
});
