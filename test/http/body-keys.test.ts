// tier: unit
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { canonicalKeys, compileKeyMap } from '../../src/http/body-keys.js';
import { OutgoingMessageSchema } from '../../src/http/routes/email/schemas.js';
import { BulkBodySchema } from '../../src/http/routes/bulk/schemas.js';
import { WebhookBody } from '../../src/http/routes/webhooks/schemas.js';

const canon = (schema: unknown, body: unknown) => canonicalKeys(body, compileKeyMap(schema)!);

describe('body keys in any case', () => {
  it("puts known keys in the schema's spelling at every depth it describes", () => {
    const out = canon(OutgoingMessageSchema, {
      from: 'a@example.com',
      TO: 'b@example.net',
      htmlbody: '<p>x</p>',
      headers: [{ name: 'X-A', value: '1' }],
      attachments: [{ NAME: 'a.txt', content: 'eA==', contentType: 'text/plain', contentid: null }],
      metadata: { customerId: '7', Plan: 'gold' },
      templateModel: { userName: 'Ann', Nested: { Key: 1 } },
      X_Unknown: 1,
    });
    assert.deepEqual(out, {
      From: 'a@example.com',
      To: 'b@example.net',
      HtmlBody: '<p>x</p>',
      Headers: [{ Name: 'X-A', Value: '1' }],
      Attachments: [{ Name: 'a.txt', Content: 'eA==', ContentType: 'text/plain', ContentID: null }],
      // The user's own keys keep their case.
      Metadata: { customerId: '7', Plan: 'gold' },
      TemplateModel: { userName: 'Ann', Nested: { Key: 1 } },
      X_Unknown: 1,
    });
  });

  it('leaves a body already in the spelling of the schema as the same object', () => {
    const body = { From: 'a@example.com', To: 'b@example.net', Headers: [{ Name: 'n', Value: 'v' }] };
    assert.equal(canon(OutgoingMessageSchema, body), body);
  });

  it('reads a batch (an array of messages) and bulk entries', () => {
    const batch = canon(Type.Array(OutgoingMessageSchema), [{ from: 'x' }, { FROM: 'y' }]);
    assert.deepEqual(batch, [{ From: 'x' }, { From: 'y' }]);
    const bulk = canon(BulkBodySchema, { from: 'x', messages: [{ to: 'a', templatemodel: { a: 1 }, metadata: { k: 'v' } }] });
    assert.deepEqual(bulk, { From: 'x', Messages: [{ To: 'a', TemplateModel: { a: 1 }, Metadata: { k: 'v' } }] });
  });

  it('reads nested objects of a union (Triggers, HttpAuth, HttpHeaders)', () => {
    const out = canon(WebhookBody, {
      url: 'https://h.example/',
      httpAuth: { username: 'u', password: 'p' },
      httpHeaders: [{ name: 'X-K', value: 'v' }],
      triggers: { open: { enabled: true, postFirstOpenOnly: false }, Bounce: { includecontent: true } },
    });
    assert.deepEqual(out, {
      Url: 'https://h.example/',
      HttpAuth: { Username: 'u', Password: 'p' },
      HttpHeaders: [{ Name: 'X-K', Value: 'v' }],
      Triggers: { Open: { Enabled: true, PostFirstOpenOnly: false }, Bounce: { IncludeContent: true } },
    });
  });

  it('two spellings of one key: the later in the document wins, at the place of the first', () => {
    assert.deepEqual(JSON.stringify(canon(OutgoingMessageSchema, JSON.parse('{"From":"first","To":"t","from":"second"}'))), '{"From":"second","To":"t"}');
    assert.deepEqual(JSON.stringify(canon(OutgoingMessageSchema, JSON.parse('{"from":"first","From":"second"}'))), '{"From":"second"}');
  });

  it('keeps a "__proto__" key as data', () => {
    const out = canon(OutgoingMessageSchema, JSON.parse('{"from":"x","__proto__":{"polluted":1}}')) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ['From', '__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('refuses a schema naming one key in two spellings (a programming error)', () => {
    assert.throws(() => compileKeyMap(Type.Object({ Id: Type.String(), ID: Type.String() })), /both 'Id' and 'ID'/);
  });

  it('costs one pass: a megabyte of keys in the wrong case is read in linear work', () => {
    const n = 20_000;
    const attachments = Array.from({ length: n }, (_, i) => ({ name: `f${i}`, content: 'eA==' }));
    const out = canon(OutgoingMessageSchema, { attachments }) as { Attachments: Array<{ Name: string }> };
    assert.equal(out.Attachments.length, n);
    assert.equal(out.Attachments[n - 1].Name, `f${n - 1}`);
  });
});
