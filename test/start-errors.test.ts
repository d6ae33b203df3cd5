// tier: unit
// The one line a failed start prints names the variable to change: a busy default port is its own
// listener's (2525 the inbound SMTP listener, 2587 submission), not the HTTP port's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStartError } from '../src/start-errors.js';
import { selfCommand } from '../src/self-command.js';

const busy = (port: number) => Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen', address: '0.0.0.0', port });

describe('start errors: a busy port names its variable', () => {
  it('the default ports of each listener', () => {
    assert.match(describeStartError(busy(2525), './data/mailroom.db', {})!, /0\.0\.0\.0:2525 \(MAILROOM_INBOUND_SMTP_PORT\): the port is already in use/);
    assert.match(describeStartError(busy(2587), './data/mailroom.db', {})!, /:2587 \(MAILROOM_SUBMISSION_PORT\)/);
    assert.match(describeStartError(busy(8080), './data/mailroom.db', {})!, /:8080 \(MAILROOM_PORT\)/);
  });

  it('a port set by a variable names that variable, even when it is another listener default', () => {
    assert.match(describeStartError(busy(2525), './d.db', { MAILROOM_DEV_SMTP_PORT: '2525' })!, /\(MAILROOM_DEV_SMTP_PORT\)/);
    assert.match(describeStartError(busy(9000), './d.db', { MAILROOM_PORT: '9000' })!, /\(MAILROOM_PORT\)/);
    // A default moved away is no longer that listener's port.
    assert.match(describeStartError(busy(2525), './d.db', { MAILROOM_INBOUND_SMTP_PORT: '2526', MAILROOM_PORT: '2525' })!, /\(MAILROOM_PORT\)/);
  });
});

describe('selfCommand: the command the banner prints', () => {
  it('mailroom when run through its bin link, else node with the path from the working folder', () => {
    assert.equal(selfCommand(['/usr/bin/node', '/usr/local/bin/mailroom'], '/srv'), 'mailroom');
    assert.equal(selfCommand(['/usr/bin/node', '/srv/app/dist/cli.js'], '/srv/app'), 'node dist/cli.js');
    assert.equal(selfCommand(['/usr/bin/node', '/opt/mailroom/dist/cli.js'], '/home/me'), 'node /opt/mailroom/dist/cli.js');
    assert.equal(selfCommand(['/usr/bin/node', '/srv/app/src/cli.ts'], '/srv/app'), 'npx tsx src/cli.ts');
  });
});
