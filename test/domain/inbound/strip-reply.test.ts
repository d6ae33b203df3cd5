// tier: unit
// StrippedTextReply on replies written in the published quoting formats of Gmail, Outlook (desktop, web,
// the older "Original Message" form), Apple Mail and Thunderbird, in English, German, French, Spanish and
// Russian (test/fixtures/replies/*.txt, written by the team after those formats).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { stripReply } from '../../../src/domain/inbound/strip-reply.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/replies/${name}`, import.meta.url), 'utf8');

const EXPECTED: Record<string, string> = {
  'gmail-en.txt': 'Thanks, that fixed it.\n\nJane',
  'gmail-de.txt': 'Danke, jetzt geht es wieder.',
  'gmail-fr.txt': "Merci, c'est réglé.",
  'gmail-es.txt': 'Gracias, ya funciona.',
  'outlook-desktop-en.txt': 'Approved. Please go ahead with the order.\n\nRegards,\nTom Baker\nPurchasing',
  'outlook-desktop-de.txt': 'Freigegeben, bitte bestellen.',
  'outlook-original-message-en.txt': 'Yes, Thursday works for me.',
  'outlook-web-fr.txt': "D'accord pour jeudi.",
  'apple-mail-en.txt': 'Sounds good, see you then.\n\nSent from my iPhone',
  'apple-mail-de.txt': 'Passt, bis Donnerstag.',
  'thunderbird-en.txt': 'The attachment is the signed contract.',
  'thunderbird-fr.txt': 'Voici le contrat signé.',
  'thunderbird-ru.txt': 'Спасибо, получил.',
  // No quote: the whole text is the reply, even with "On Friday" inside it.
  'no-quote.txt': 'Hello,\n\nI would like to order 3 more units.\nOn Friday I can pay by card.\n\nJane',
};

describe('StrippedTextReply', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`keeps only the reply of ${name.replace('.txt', '')}`, () => {
      assert.equal(stripReply(fixture(name)), expected);
    });
  }

  it('handles CRLF line endings and empty input', () => {
    assert.equal(stripReply(fixture('gmail-fr.txt').replace(/\n/g, '\r\n')), "Merci, c'est réglé.");
    assert.equal(stripReply(''), '');
    assert.equal(stripReply(undefined), '');
  });
});
