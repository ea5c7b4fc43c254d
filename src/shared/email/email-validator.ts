/**
 * Python email-validator 2.3's `validate_email(email, check_deliverability=False)` with its default
 * options (no quoted local parts, no domain literals, no display names, not strict, globally
 * deliverable, not a test environment), ported from `email_validator/syntax.py` and
 * `validate_email.py` check for check, message for message: FastAPI clients parse these messages.
 * Python's semantics are kept where they differ from JavaScript's: lengths and iteration by code
 * point, `sorted()` by code point, `str.rstrip()`, `repr()` (see python-unicode.ts).
 *
 * The DNS deliverability part of the library is not ported: Pydantic turns it off.
 */
import { alabel, decode, encode, IDNAError, uts46Remap } from './python-idna';
import { AddressValueError, parseIPv4, parseIPv6 } from './python-ipaddress';
import { category, decomposesWithDot, isSpace, pyLength, safeCharacterDisplay, sortedPy } from './python-unicode';

export class EmailSyntaxError extends Error {}

export interface ValidatedEmail {
  /** The address as it should be stored: local part NFC (lower-cased for RFC 2142 role names), domain in Unicode, normalized. */
  normalized: string;
  localPart: string;
  /** The display name that the input had in `Name <addr>` form (email-validator refuses it by default). */
  displayName: string | null;
}

// rfc_constants.py
const ATEXT = "a-zA-Z0-9_!#\\$%&'\\*\\+\\-/=\\?\\^`\\{\\|\\}~";
const ATEXT_INTL = `${ATEXT}\\u0080-\\u{10FFFF}`;
/** One character of ATEXT or a dot (ATEXT_RE), and with the non-ASCII range (ATEXT_INTL_DOT_RE). */
const ATEXT_CHAR = new RegExp(`^[.${ATEXT}]$`, 'u');
const ATEXT_INTL_DOT_CHAR = new RegExp(`^[.${ATEXT_INTL}]$`, 'u');
const DOT_ATOM_TEXT = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`, 'u');
const DOT_ATOM_TEXT_INTL = new RegExp(`^[${ATEXT_INTL}]+(?:\\.[${ATEXT_INTL}]+)*$`, 'u');
const ATEXT_HOSTNAME_INTL_CHAR = /^[a-zA-Z0-9\-.\u0080-\u{10FFFF}]$/u;
const HOSTNAME_LABEL = '(?:(?:[a-zA-Z0-9][a-zA-Z0-9\\-]*)?[a-zA-Z0-9])';
const DOT_ATOM_TEXT_HOSTNAME = new RegExp(`^${HOSTNAME_LABEL}(?:\\.${HOSTNAME_LABEL})*$`);
const DOMAIN_LITERAL_CHAR = /^[\u0021-\u00FA\u005E-\u007E]$/u;
const QTEXT_INTL_CHAR = /^[\u0020-\u007E\u0080-\u{10FFFF}]$/u;
const EMAIL_MAX_LENGTH = 254;
const DNS_LABEL_LENGTH_LIMIT = 63;
const DOMAIN_MAX_LENGTH = 253;
const CASE_INSENSITIVE_MAILBOX_NAMES = [
  ...['info', 'marketing', 'sales', 'support', 'abuse', 'noc', 'security'],
  ...['postmaster', 'hostmaster', 'usenet', 'news', 'webmaster', 'www', 'uucp', 'ftp'],
];
/** email_validator/__init__.py SPECIAL_USE_DOMAIN_NAMES (IANA special-use names; "test" too, outside test environments). */
const SPECIAL_USE_DOMAIN_NAMES = ['arpa', 'invalid', 'local', 'localhost', 'onion', 'test'];

/** Python's `for c in s` (code points as strings). */
const chars = (s: string) => Array.from(s);
const fail = (message: string): never => {
  throw new EmailSyntaxError(message);
};
const listOf = (displays: Iterable<string>) => sortedPy(displays).join(', ');

/** `str.rstrip()` (Python whitespace). */
function rstripSpace(s: string): string {
  const cps = chars(s);
  while (cps.length > 0 && isSpace(cps[cps.length - 1]!.codePointAt(0)!)) cps.pop();
  return cps.join('');
}

function rstripChars(s: string, strip: string): string {
  const cps = chars(s);
  while (cps.length > 0 && cps[cps.length - 1] === strip) cps.pop();
  return cps.join('');
}

/**
 * split_string_at_unquoted_special: the text before the first `@` (or `<`) outside quotes that no
 * following character combines with (`<` + U+0338 is `≮`), and the rest.
 */
function splitAtUnquotedSpecial(text: string, specials: string[]): [string, string] {
  const all = chars(text);
  let insideQuote = false;
  let escaped = false;
  let left = 0;
  for (let i = 0; i < all.length; i += 1) {
    const c = all[i]!;
    if (composesWithWhatFollows(all, i)) {
      left += 1;
    } else if (insideQuote) {
      left += 1;
      if (c === '\\' && !escaped) escaped = true;
      else if (c === '"' && !escaped) {
        insideQuote = false;
        escaped = false;
      } else escaped = false;
    } else if (c === '"') {
      left += 1;
      insideQuote = true;
    } else if (specials.includes(c)) {
      break;
    } else {
      left += 1;
    }
  }
  if (left === all.length) {
    if (text.includes('＠')) fail('The email address has the "full-width" at-sign (@) character instead of a regular at-sign.');
    if (text.includes('﹫')) fail('The email address has the "small commercial at" character instead of a regular at-sign.');
    fail('An email address must have an @-sign.');
  }
  return [all.slice(0, left).join(''), all.slice(left).join('')];
}

/**
 * `unicodedata.normalize("NFC", text[i:])[0] != c`. Below U+0300 nothing changes under NFC nor
 * combines as a second character, so two such characters in a row need no normalizing (the common
 * case, which keeps a 2048-character input from costing 2048 normalizations).
 */
function composesWithWhatFollows(all: string[], i: number): boolean {
  const next = all[i + 1];
  if (all[i]!.codePointAt(0)! < 0x300 && (next === undefined || next.codePointAt(0)! < 0x300)) return false;
  return String.fromCodePoint(all.slice(i).join('').normalize('NFC').codePointAt(0)!) !== all[i];
}

/** unquote_quoted_string: a leading quote opens a quoted string whose close quote must end the text. */
function unquoteQuotedString(text: string): [string, boolean] {
  const all = chars(text);
  let quoted = false;
  let escaped = false;
  let value = '';
  for (let i = 0; i < all.length; i += 1) {
    const c = all[i]!;
    if (quoted) {
      if (escaped) {
        value += c;
        escaped = false;
      } else if (c === '\\') escaped = true;
      else if (c === '"') {
        if (i !== all.length - 1) {
          fail(
            `Extra character(s) found after close quote: ${all
              .slice(i + 1)
              .map(safeCharacterDisplay)
              .join(', ')}`,
          );
        }
        break;
      } else value += c;
    } else if (i === 0 && c === '"') quoted = true;
    else value += c;
  }
  return [value, quoted];
}

interface SplitEmail {
  displayName: string | null;
  localPart: string;
  domainPart: string;
  quotedLocalPart: boolean;
}

/** split_email: the optional `display name <addr>` form, then the local and domain parts. */
function splitEmail(email: string): SplitEmail {
  let [left, right] = splitAtUnquotedSpecial(email, ['@', '<']);
  let displayName: string | null = null;
  let localPart: string;
  let domainPart: string;
  if (right.startsWith('<')) {
    left = rstripSpace(left);
    const [name, nameQuoted] = unquoteQuotedString(left);
    displayName = name;
    if (!nameQuoted) {
      const bad = chars(name).filter((c) => (!ATEXT_CHAR.test(c) && c !== ' ') || c === '.');
      if (bad.length > 0) fail(`The display name contains invalid characters when not quoted: ${listOf(bad.map(safeCharacterDisplay))}.`);
    }
    checkUnsafeChars(name, true);
    if (!right.includes('>'))
      fail('An open angle bracket at the start of the email address has to be followed by a close angle bracket at the end.');
    right = rstripChars(right, ' ');
    if (!right.endsWith('>')) fail("There can't be anything after the email address.");
    const addrSpec = rstripChars(chars(right).slice(1).join(''), '>');
    [localPart, domainPart] = splitAtUnquotedSpecial(addrSpec, ['@']);
  } else {
    [localPart, domainPart] = [left, right];
  }
  if (domainPart.startsWith('@')) domainPart = domainPart.slice(1);
  const [unquoted, quotedLocalPart] = unquoteQuotedString(localPart);
  return { displayName, localPart: unquoted, domainPart, quotedLocalPart };
}

function lengthReason(addr: string, limit: number): string {
  const diff = pyLength(addr) - limit;
  return `(${diff} character${diff > 1 ? 's' : ''} too many)`;
}

/** check_unsafe_chars: marks first, spaces (unless allowed), separators, controls, format, surrogates, private use, unassigned. */
function checkUnsafeChars(s: string, allowSpace = false): void {
  const bad = new Set<string>();
  chars(s).forEach((c, i) => {
    const cat = category(c.codePointAt(0)!);
    if ('LNPS'.includes(cat[0]!)) return;
    if (cat[0] === 'M') {
      if (i === 0) bad.add(c);
    } else if (cat === 'Zs') {
      if (!allowSpace) bad.add(c);
    } else bad.add(c);
  });
  if (bad.size > 0) fail(`The email address contains unsafe characters: ${sortedPy(bad).map(safeCharacterDisplay).join(', ')}.`);
}

interface LocalPart {
  localPart: string;
  asciiLocalPart: string | null;
}

/** validate_email_local_part (allow_smtputf8, not strict: 64 characters is not a limit here). */
function validateLocalPart(local: string, quotedLocalPart: boolean): LocalPart {
  if (local.length === 0) fail('There must be something before the @-sign.');
  if (DOT_ATOM_TEXT.test(local)) return { localPart: local, asciiLocalPart: local };
  let valid: 'dot-atom' | 'quoted' | undefined;
  let smtputf8 = false;
  if (DOT_ATOM_TEXT_INTL.test(local)) {
    valid = 'dot-atom';
    smtputf8 = true;
  } else if (quotedLocalPart) {
    const bad = chars(local).filter((c) => !QTEXT_INTL_CHAR.test(c));
    if (bad.length > 0)
      fail(`The email address contains invalid characters in quotes before the @-sign: ${listOf(bad.map(safeCharacterDisplay))}.`);
    if (chars(local).some((c) => c.codePointAt(0)! < 32 || c.codePointAt(0)! > 126)) smtputf8 = true;
    valid = 'quoted';
  }
  if (valid) {
    checkUnsafeChars(local, valid === 'quoted');
    // Python's `local.encode("utf8")` cannot fail here: surrogates were refused as unsafe above.
    if (valid === 'quoted') local = `"${local.replace(/(["\\])/g, '\\$1')}"`;
    return { localPart: local, asciiLocalPart: smtputf8 ? null : local };
  }
  const bad = chars(local).filter((c) => !ATEXT_INTL_DOT_CHAR.test(c));
  if (bad.length > 0) fail(`The email address contains invalid characters before the @-sign: ${listOf(bad.map(safeCharacterDisplay))}.`);
  checkDotAtom(
    local,
    'An email address cannot start with a {}.',
    'An email address cannot have a {} immediately before the @-sign.',
    false,
  );
  return fail('The email address contains invalid characters before the @-sign.');
}

function checkDotAtom(label: string, startDescr: string, endDescr: string, isHostname: boolean): void {
  if (label.endsWith('.')) fail(endDescr.replace('{}', 'period'));
  if (label.startsWith('.')) fail(startDescr.replace('{}', 'period'));
  if (label.includes('..')) fail('An email address cannot have two periods in a row.');
  if (isHostname) {
    if (label.endsWith('-')) fail(endDescr.replace('{}', 'hyphen'));
    if (label.startsWith('-')) fail(startDescr.replace('{}', 'hyphen'));
    if (label.includes('.-') || label.includes('-.')) fail('An email address cannot have a period and a hyphen next to each other.');
  }
}

/** uts46_valid_char: email-validator's own approximation of what UTS #46 mapping would reject, with its own message. */
function uts46ValidChar(cp: number): boolean {
  if (cp >= 0x80 && cp <= 0x9f) return false;
  if (
    (cp >= 0x2010 && cp <= 0x2060 && !(cp >= 0x2024 && cp <= 0x2026) && !(cp >= 0x2028 && cp <= 0x202e)) ||
    [0x00ad, 0x2064, 0xff0e].includes(cp) ||
    (cp >= 0x200b && cp <= 0x200d) ||
    (cp >= 0x1bca0 && cp <= 0x1bca3)
  ) {
    return true;
  }
  if (['Cf', 'Cn', 'Co', 'Cs', 'Zs', 'Zl', 'Zp'].includes(category(cp))) return false;
  return !decomposesWithDot(cp);
}

const idnaReason = (error: unknown) => {
  if (error instanceof IDNAError) return error.message;
  throw error;
};

/** validate_email_domain_name (globally deliverable, not a test environment). */
function validateDomainName(domain: string): { asciiDomain: string; domain: string } {
  const invalidChars = (s: string) => chars(s).filter((c) => !ATEXT_HOSTNAME_INTL_CHAR.test(c));
  let bad = invalidChars(domain);
  if (bad.length > 0) fail(`The part after the @-sign contains invalid characters: ${listOf(bad.map(safeCharacterDisplay))}.`);
  checkUnsafeChars(domain);
  bad = chars(domain).filter((c) => !uts46ValidChar(c.codePointAt(0)!));
  if (bad.length > 0) fail(`The part after the @-sign contains invalid characters: ${listOf(bad.map(safeCharacterDisplay))}.`);

  const original = domain;
  try {
    domain = uts46Remap(domain);
  } catch (error) {
    fail(`The part after the @-sign contains invalid characters (${idnaReason(error)}).`);
  }
  bad = invalidChars(domain);
  if (bad.length > 0) {
    fail(`The part after the @-sign contains invalid characters after Unicode normalization: ${listOf(bad.map(safeCharacterDisplay))}.`);
  }
  checkDotAtom(domain, 'An email address cannot have a {} immediately after the @-sign.', 'An email address cannot end with a {}.', true);
  for (const label of domain.split('.')) {
    // re.match(r"(?!xn)..--", label, re.I): two characters (code points) then two dashes, unless "xn".
    const cps = chars(label);
    if (cps.length >= 4 && cps[2] === '-' && cps[3] === '-' && (cps[0]! + cps[1]!).toLowerCase() !== 'xn') {
      fail(
        'An email address cannot have two letters followed by two dashes immediately after the @-sign or after a period, except Punycode.',
      );
    }
  }

  let asciiDomain = domain;
  if (!DOT_ATOM_TEXT_HOSTNAME.test(domain)) {
    try {
      asciiDomain = domain
        .split('.')
        .map((label) => alabel(label))
        .join('.');
    } catch (error) {
      fail(`The part after the @-sign is invalid (${idnaReason(error)}).`);
    }
    if (!DOT_ATOM_TEXT_HOSTNAME.test(asciiDomain))
      fail('The email address contains invalid characters after the @-sign after IDNA encoding.');
  }

  if (asciiDomain.length > DOMAIN_MAX_LENGTH) {
    if (asciiDomain === original) fail(`The email address is too long after the @-sign ${lengthReason(asciiDomain, DOMAIN_MAX_LENGTH)}.`);
    const diff = asciiDomain.length - DOMAIN_MAX_LENGTH;
    fail(`The email address is too long after the @-sign (${diff} byte${diff === 1 ? '' : 's'} too many after IDNA encoding).`);
  }
  for (const label of asciiDomain.split('.')) {
    if (label.length > DNS_LABEL_LENGTH_LIMIT) {
      fail(`After the @-sign, periods cannot be separated by so many characters ${lengthReason(label, DNS_LABEL_LENGTH_LIMIT)}.`);
    }
  }
  if (!asciiDomain.includes('.')) fail('The part after the @-sign is not valid. It should have a period.');
  if (!/[A-Za-z]$/.test(asciiDomain)) fail('The part after the @-sign is not valid. It is not within a valid top-level domain.');
  for (const special of SPECIAL_USE_DOMAIN_NAMES) {
    if (asciiDomain === special || asciiDomain.endsWith(`.${special}`)) {
      fail('The part after the @-sign is a special-use or reserved name that cannot be used with email.');
    }
  }

  let unicodeDomain = '';
  try {
    unicodeDomain = decode(asciiDomain);
  } catch (error) {
    fail(`The part after the @-sign is not valid IDNA (${idnaReason(error)}).`);
  }
  bad = invalidChars(unicodeDomain);
  if (bad.length > 0) fail(`The part after the @-sign contains invalid characters: ${listOf(bad.map(safeCharacterDisplay))}.`);
  checkUnsafeChars(unicodeDomain);
  try {
    encode(unicodeDomain);
  } catch (error) {
    fail(`The part after the @-sign became invalid after normalizing to international characters (${idnaReason(error)}).`);
  }
  return { asciiDomain, domain: unicodeDomain };
}

/** validate_email_domain_literal: only its refusals matter, literals being refused anyway. */
function validateDomainLiteral(literal: string): void {
  // Python's `$` also matches before a final newline.
  if (/^[0-9.]+\n?$/.test(literal)) {
    try {
      parseIPv4(literal);
    } catch (error) {
      if (!(error instanceof AddressValueError)) throw error;
      fail(
        `The address in brackets after the @-sign is not valid: It is not an IPv4 address (${error.message}) or is missing an address literal tag.`,
      );
    }
    return;
  }
  if (literal.startsWith('IPv6:')) {
    try {
      parseIPv6(literal.slice(5));
    } catch (error) {
      if (!(error instanceof AddressValueError)) throw error;
      fail(`The IPv6 address in brackets after the @-sign is not valid (${error.message}).`);
    }
    return;
  }
  if (!literal.includes(':')) fail('The part after the @-sign in brackets is not an IPv4 address and has no address literal tag.');
  const bad = chars(literal).filter((c) => !DOMAIN_LITERAL_CHAR.test(c));
  if (bad.length > 0) fail(`The part after the @-sign contains invalid characters in brackets: ${listOf(bad.map(safeCharacterDisplay))}.`);
  fail('The part after the @-sign contains an invalid address literal tag in brackets.');
}

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

/** validate_email_length: the input, the normalized address and its IDNA ASCII form, each within 254 UTF-8 bytes. */
function validateLength(original: string, normalized: string, asciiForm: string): void {
  const checks: [string, string | null][] = [
    [original, null],
    [normalized, 'after normalization'],
    [asciiForm, 'when the part after the @-sign is converted to IDNA ASCII'],
  ];
  for (const [addr, why] of checks) {
    const diff = utf8Length(addr) - EMAIL_MAX_LENGTH;
    if (diff <= 0) continue;
    const s = diff > 1 ? 's' : '';
    let reason: string;
    if (why === null && pyLength(addr) === utf8Length(addr)) reason = lengthReason(addr, EMAIL_MAX_LENGTH);
    else if (why === null) {
      const mostBytes = Math.max(...chars(addr).map(utf8Length));
      const fewest = Math.max(1, Math.floor(diff / mostBytes));
      reason = fewest === diff ? `(${diff} character${s} too many)` : `(${fewest}-${diff} character${s} too many)`;
    } else reason = `${why} (${diff} byte${s} too many)`;
    fail(`The email address is too long ${reason}.`);
  }
}

/** email_validator.validate_email(email, check_deliverability=False), default options. Throws EmailSyntaxError. */
export function validateEmail(email: string): ValidatedEmail {
  const split = splitEmail(email);
  const displayName = split.displayName ? split.displayName.normalize('NFC') : split.displayName;
  const original = `${split.quotedLocalPart ? `"${split.localPart}"` : split.localPart}@${split.domainPart}`;

  const local = validateLocalPart(split.localPart, split.quotedLocalPart);
  let { localPart, asciiLocalPart } = local;
  const nfc = localPart.normalize('NFC');
  if (nfc !== localPart) {
    try {
      validateLocalPart(nfc, split.quotedLocalPart);
    } catch (error) {
      if (error instanceof EmailSyntaxError) fail(`After Unicode normalization: ${error.message}`);
      throw error;
    }
    localPart = nfc;
  }
  if (split.quotedLocalPart) fail('Quoting the part before the @-sign is not allowed here.');
  if (asciiLocalPart !== null && CASE_INSENSITIVE_MAILBOX_NAMES.includes(asciiLocalPart.toLowerCase())) {
    asciiLocalPart = asciiLocalPart.toLowerCase();
    localPart = localPart.toLowerCase();
  }

  if (split.domainPart.length === 0) return fail('There must be something after the @-sign.');
  if (split.domainPart.startsWith('[') && split.domainPart.endsWith(']')) {
    validateDomainLiteral(chars(split.domainPart).slice(1, -1).join(''));
    return fail('A bracketed IP address after the @-sign is not allowed here.');
  }
  const domain = validateDomainName(split.domainPart);

  const normalized = `${localPart}@${domain.domain}`;
  validateLength(original, normalized, `${asciiLocalPart ?? localPart}@${domain.asciiDomain}`);
  if (displayName !== null) fail('A display name and angle brackets around the email address are not permitted here.');
  return { normalized, localPart, displayName };
}
