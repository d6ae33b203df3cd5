// Mail that answers a message without being a bounce: vacation and out-of-office replies (RFC 3834) and
// the challenges of challenge-response spam filters. Neither says anything about deliverability, so they
// are recorded (AutoResponder, ChallengeVerification) but never suppress.
import type { Email } from 'postal-mime';

function header(email: Email, name: string): string | null {
  return email.headers.find((h) => h.key === name)?.value ?? null;
}

/** RFC 3834 5: Auto-Submitted other than "no"; plus what common vacation responders add instead. */
export function isAutoReply(email: Email): boolean {
  const auto = header(email, 'auto-submitted');
  if (auto && !/^\s*no\b/i.test(auto)) return true;
  if (header(email, 'x-autoreply') || header(email, 'x-autorespond') || header(email, 'x-autoresponder')) return true;
  if (/auto[_-]?reply/i.test(header(email, 'precedence') ?? '')) return true;
  return /^\s*(out of (the )?office|automatic reply|auto(matic)?[- ]?(reply|response)|auto:|on vacation|abwesenheitsnotiz|r[ée]ponse automatique)/i.test(email.subject ?? '');
}

/** Challenge-response filters (SpamArrest, Boxbe, ...) ask the sender to prove they are a person. */
const CHALLENGE = /(verify|confirm) (that )?(you are (a )?(human|real|person)|your (e-?mail|message|address|identity))|approved senders? list|spam ?arrest|boxbe|challenge[- ]response|please (verify|confirm) (you|your)/i;

export function isChallenge(email: Email): boolean {
  return CHALLENGE.test(email.subject ?? '') || CHALLENGE.test((email.text ?? '').slice(0, 4000));
}
