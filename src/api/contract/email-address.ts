/**
 * E-mail addresses as Pydantic's `EmailStr` judges them (Python's email-validator underneath), with
 * its reasons, which clients parse from the 422 `msg`.
 */
import isEmail from 'validator/lib/isEmail';

export type EmailCheck = { ok: true; normalized: string } | { ok: false; reason: string };

export function validateEmailLikePydantic(email: string): EmailCheck {
  const at = email.split('@').length - 1;
  if (at === 0) return { ok: false, reason: 'An email address must have an @-sign.' };
  if (at > 1) return { ok: false, reason: 'The email address is not valid. It must have exactly one @-sign.' };
  const [local, domain] = email.split('@') as [string, string];
  if (local === '') return { ok: false, reason: 'There must be something before the @-sign.' };
  if (domain === '') return { ok: false, reason: 'There must be something after the @-sign.' };
  if (!domain.includes('.')) return { ok: false, reason: 'The part after the @-sign is not valid. It should have a period.' };
  if (!isEmail(email, { allow_utf8_local_part: true, require_tld: true })) return { ok: false, reason: 'The email address is not valid.' };
  return { ok: true, normalized: `${local}@${domain.toLowerCase()}` };
}
