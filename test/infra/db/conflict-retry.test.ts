// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConflictAbort, withConflictRetry } from '../../../src/infra/db/conflict-retry.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('conflict aborts of a transaction', () => {
  it('tells a deadlock, a serialization failure and a partition routing race from errors in the data', () => {
    assert.equal(isConflictAbort(pgError('40P01', 'deadlock detected')), true);
    assert.equal(isConflictAbort(pgError('40001')), true);
    assert.equal(isConflictAbort(pgError('23514', 'new row for relation "message_events_default" violates partition constraint')), true);
    assert.equal(isConflictAbort(pgError('23514', 'new row violates check constraint "x"')), false);
    assert.equal(isConflictAbort(pgError('23505', 'duplicate key')), false);
    assert.equal(isConflictAbort(new Error('plain')), false);
    assert.equal(isConflictAbort(null), false);
  });

  it('runs the transaction again after a conflict abort, at most three times, and never after another error', async () => {
    let runs = 0;
    assert.equal(await withConflictRetry(async () => (++runs < 3 ? Promise.reject(pgError('40P01')) : 'done')), 'done');
    assert.equal(runs, 3);

    runs = 0;
    await assert.rejects(withConflictRetry(async () => { runs++; throw pgError('40P01'); }), /x/);
    assert.equal(runs, 3, 'gives up after three');

    runs = 0;
    await assert.rejects(withConflictRetry(async () => { runs++; throw pgError('23505', 'duplicate key'); }), /duplicate key/);
    assert.equal(runs, 1, 'an error in the data is not retried');
  });
});
