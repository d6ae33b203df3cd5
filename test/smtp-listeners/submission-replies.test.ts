// tier: unit
// The API's refusals as SMTP replies: a refusal of the message is permanent (5xx), a refusal of the service's
// own state (a full sending queue, a drain: HTTP 503) is temporary, so the client keeps the message and retries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/domain/errors.js';
import { refusalReply } from '../../src/smtp-listeners/submission-replies.js';

describe('refusalReply', () => {
  it('answers a full sending queue with 451 4.3.2, not a permanent failure', () => {
    assert.deepEqual(refusalReply(ErrorCode.Maintenance, 503, 'The sending queue is full'), { code: 451, message: '4.3.2 The sending queue is full' });
  });
  it('keeps the permanent refusals of the message itself', () => {
    assert.equal(refusalReply(ErrorCode.SenderSignatureNotConfirmed, 422, 'x').code, 550);
    assert.deepEqual(refusalReply(ErrorCode.InvalidEmailRequest, 422, 'bad'), { code: 550, message: '5.6.0 bad' });
    assert.equal(refusalReply(ErrorCode.InvalidEmailRequest, 413, 'big').code, 552);
  });
});
