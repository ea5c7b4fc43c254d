/**
 * Pydantic 2.13's `EmailStr`, as FastAPI validates an e-mail field: pydantic/networks.py
 * `validate_email` on top of email-validator 2.3 (email-validator.ts). Its `value_error` reason is
 * the message FastAPI integrators parse, and its result, the normalized address, is what we store.
 *
 * Written by hand because no npm library has these semantics: `validator`'s isEmail, `email-addresses`,
 * `zod`'s email and the like each accept and refuse other addresses than email-validator (special-use
 * domains, display names, 64-character local parts, IDNA 2008 rules) and none gives its reasons or
 * its normalization. test/email/ replays several thousand addresses answered by the real Python.
 */
import { validateEmail, EmailSyntaxError } from './email-validator';
import { pyLength, pyStrip, SPACE_CLASS, WORD_CLASS } from './python-unicode';

export type EmailStrCheck = { ok: true; normalized: string } | { ok: false; reason: string };

/** pydantic.networks.MAX_EMAIL_LENGTH: checked before anything else, in code points. */
export const MAX_EMAIL_LENGTH = 2048;

/**
 * pretty_email_regex, fullmatched: `  Name Words <addr>  ` or `"Quoted name" <addr>` or `<addr>`.
 * Python's `\w` and `\s` are Unicode-wide and not JavaScript's (python-unicode.ts); `.` stops only at "\n".
 */
const prettyEmail = (() => {
  const s = `[${SPACE_CLASS}]`;
  const nameChars = `[${WORD_CLASS}!#$%&'*+\\-/=?^_\`{|}~]`;
  const unquotedName = `((?:${nameChars}+${s}+)*${nameChars}+)`;
  const quotedName = '"((?:[^"]|")+)"';
  return new RegExp(`^${s}*(?:${unquotedName}|${quotedName})?${s}*<([^\\n]+)>${s}*$`, 'u');
})();

/** `TypeAdapter(EmailStr).validate_python(value)` for a string: the normalized address, or Pydantic's reason. */
export function validateEmailStr(value: string): EmailStrCheck {
  if (pyLength(value) > MAX_EMAIL_LENGTH) return { ok: false, reason: `Length must not exceed ${MAX_EMAIL_LENGTH} characters` };
  const pretty = prettyEmail.exec(value);
  // The display name is dropped: EmailStr keeps the address only (NameEmail would keep the name).
  const email = pyStrip(pretty ? pretty[3]! : value);
  try {
    return { ok: true, normalized: validateEmail(email).normalized };
  } catch (error) {
    if (error instanceof EmailSyntaxError) return { ok: false, reason: error.message };
    throw error;
  }
}
