/**
 * Checks of create-lead that go beyond the argument types (decisions.md, "Lead creation"); every
 * failing field is reported at once, in Pydantic's shape.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import isEmail from 'validator/lib/isEmail';
import { valueErrorDetail as valueError, type InputErrorDetail } from '../../shared/errors';
import { LeadLanguage, type CreateLeadArgs } from './lead.types';

export const SMS_PLACEHOLDERS = ['name', 'link', 'dealership', 'folder_name', 'organization'] as const;

const REGION_OF_LANGUAGE: Record<LeadLanguage, CountryCode> = {
  fr: 'FR',
  en: 'GB',
  es: 'ES',
  de: 'DE',
  it: 'IT',
  nl: 'NL',
  pt: 'PT',
};

export interface LeadInput extends CreateLeadArgs {
  /** E.164 */
  phone?: string | null;
}

/** Why an address is refused, in the words of Python's email-validator (Pydantic's EmailStr). */
function emailProblem(email: string): string | null {
  const at = email.split('@').length - 1;
  if (at === 0) return 'An email address must have an @-sign.';
  if (at > 1) return 'The email address is not valid. It must have exactly one @-sign.';
  const [local, domain] = email.split('@') as [string, string];
  if (local === '') return 'There must be something before the @-sign.';
  if (domain === '') return 'There must be something after the @-sign.';
  if (!domain.includes('.')) return 'The part after the @-sign is not valid. It should have a period.';
  if (!isEmail(email, { allow_utf8_local_part: true, require_tld: true })) {
    return 'The email address is not valid.';
  }
  return null;
}

/** Normalized input, or the list of what is wrong with it. */
export function checkLeadInput(args: CreateLeadArgs): { ok: true; input: LeadInput } | { ok: false; details: InputErrorDetail[] } {
  const details: InputErrorDetail[] = [];
  const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== null));
  const email = args.email?.trim() || null;
  let phone = args.phone?.trim() || null;

  if (email) {
    const problem = emailProblem(email);
    if (problem) {
      details.push({
        type: 'value_error',
        loc: ['email'],
        msg: `value is not a valid email address: ${problem}`,
        input: args.email,
        ctx: { reason: problem },
      });
    }
  }
  if (phone) {
    const parsed = parsePhoneNumberFromString(phone, REGION_OF_LANGUAGE[args.lang] ?? 'FR');
    if (!parsed || !parsed.isPossible()) details.push(valueError('phone', 'value is not a possible phone number', args.phone));
    else phone = parsed.number;
  }
  if (args.sendEmail && !email) {
    details.push({ type: 'missing', loc: ['email'], msg: 'Field required when sendEmail is true', input: given });
  }
  if (args.sendPhone && !phone) {
    details.push({ type: 'missing', loc: ['phone'], msg: 'Field required when sendPhone is true', input: given });
  }
  if (args.custom_sms) {
    const unknown = [...args.custom_sms.matchAll(/\{([^{}]*)\}/g)]
      .map((m) => m[1]!)
      .filter((name) => !(SMS_PLACEHOLDERS as readonly string[]).includes(name));
    if (unknown.length > 0) {
      details.push(
        valueError(
          'custom_sms',
          `unknown placeholder {${unknown[0]}}; allowed: ${SMS_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
          args.custom_sms,
        ),
      );
    }
  }
  if (details.length > 0) return { ok: false, details };
  return { ok: true, input: { ...args, email, phone } };
}
