/**
 * The parts of the Python `idna` package (3.x, IDNA 2008 + UTS #46) that email-validator calls:
 * `uts46_remap(domain, std3_rules=False)`, `alabel(label)`, `decode(domain)` and `encode(domain)`,
 * with their checks (NFC, hyphens, leading combiner, PVALID / CONTEXTJ / CONTEXTO code points, the
 * bidi rule) in the same order and with the same messages, because email-validator puts them in its
 * own (`The part after the @-sign is invalid (Codepoint U+00E0 ...)`).
 *
 * Why not Node's `url.domainToASCII`: it answers '' on any failure (no reason to quote), applies the
 * WHATWG URL host rules rather than IDNA 2008's code point classes, and uses Node's ICU Unicode
 * version instead of the tables the `idna` package ships (copied into python-unicode-data.json).
 * Punycode is RFC 3492 as Python's `punycode` codec does it, including its leniencies on decode.
 */
import data from './python-unicode-data.json';
import { bidirectional, category, codePoints, hasName, isVirama, lastAtMost, pyLength, pyRepr, rangeTable } from './python-unicode';

export class IDNAError extends Error {}

const MAX_INPUT = 1024;
const MAX_DOMAIN = 253;
const PVALID = rangeTable(data.pvalid);
const CONTEXTJ = rangeTable(data.contextj);
const CONTEXTO = rangeTable(data.contexto);
const SCRIPTS = Object.fromEntries(Object.entries(data.scripts).map(([script, pairs]) => [script, rangeTable(pairs)]));
const JOINING = Object.entries(data.joiningTypes).map(([type, pairs]) => [type, rangeTable(pairs)] as const);
const UTS46_STARTS = Int32Array.from(data.uts46Starts);

const unot = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s);
/** Python `str.lower()` on ASCII text (only A-Z change). */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
/** idna's `_unicode_dots_re`: the label separators. */
const DOTS = /[.\u3002\uff0e\uff61]/;

function joiningType(cp: number): string | undefined {
  return JOINING.find(([, has]) => has(cp))?.[0];
}

/** `uts46_remap(domain, std3_rules=False)`: map each code point by the UTS #46 table, then NFC. */
export function uts46Remap(domain: string): string {
  if (pyLength(domain) > MAX_INPUT) throw new IDNAError('Domain too long');
  if (isAscii(domain)) return asciiLower(domain);
  let out = '';
  codePoints(domain).forEach((cp, pos) => {
    const i = cp < 256 ? cp : lastAtMost(UTS46_STARTS, cp);
    const status = data.uts46Statuses[i];
    if (status === 'V' || status === 'D') out += String.fromCodePoint(cp);
    else if (status === 'M') out += data.uts46Replacements[i] ?? '';
    else if (status === 'I') return;
    else throw new IDNAError(`Codepoint ${unot(cp)} not allowed at position ${pos + 1} in ${pyRepr(domain)}`);
  });
  return out.normalize('NFC');
}

function checkBidi(label: string): void {
  const cps = codePoints(label);
  if (cps.length > MAX_INPUT) throw new IDNAError('Label too long');
  let bidiLabel = false;
  cps.forEach((cp, index) => {
    const direction = bidirectional(cp);
    if (direction === '') throw new IDNAError(`Unknown directionality in label ${pyRepr(label)} at position ${index + 1}`);
    if (['R', 'AL', 'AN'].includes(direction)) bidiLabel = true;
  });
  if (!bidiLabel) return;
  const first = bidirectional(cps[0]!);
  let rtl: boolean;
  if (first === 'R' || first === 'AL') rtl = true;
  else if (first === 'L') rtl = false;
  else throw new IDNAError(`First codepoint in label ${pyRepr(label)} must be directionality L, R or AL`);
  let validEnding = false;
  let numberType: string | undefined;
  cps.forEach((cp, index) => {
    const direction = bidirectional(cp);
    if (rtl) {
      if (!['R', 'AL', 'AN', 'EN', 'ES', 'CS', 'ET', 'ON', 'BN', 'NSM'].includes(direction))
        throw new IDNAError(`Invalid direction for codepoint at position ${index + 1} in a right-to-left label`);
      if (['R', 'AL', 'EN', 'AN'].includes(direction)) validEnding = true;
      else if (direction !== 'NSM') validEnding = false;
      if (direction === 'AN' || direction === 'EN') {
        if (!numberType) numberType = direction;
        else if (numberType !== direction) throw new IDNAError('Can not mix numeral types in a right-to-left label');
      }
    } else {
      if (!['L', 'EN', 'ES', 'CS', 'ET', 'ON', 'BN', 'NSM'].includes(direction))
        throw new IDNAError(`Invalid direction for codepoint at position ${index + 1} in a left-to-right label`);
      if (direction === 'L' || direction === 'EN') validEnding = true;
      else if (direction !== 'NSM') validEnding = false;
    }
  });
  if (!validEnding) throw new IDNAError('Label ends with illegal codepoint directionality');
}

/** `_combining_class(cp) == 9`, raising (as Python's ValueError) for a character without a name. */
function viramaBefore(cp: number): boolean {
  if (isVirama(cp)) return true;
  if (!hasName(cp)) throw new RangeError('Unknown character in unicodedata');
  return false;
}

function validContextJ(cps: number[], pos: number): boolean {
  const cp = cps[pos]!;
  if (cp === 0x200c) {
    if (pos > 0 && viramaBefore(cps[pos - 1]!)) return true;
    const scan = (indices: number[], wanted: string[]) => {
      for (const i of indices) {
        const type = joiningType(cps[i]!);
        if (type === 'T') continue;
        return type !== undefined && wanted.includes(type);
      }
      return false;
    };
    const before = Array.from({ length: pos }, (_, k) => pos - 1 - k);
    const after = Array.from({ length: cps.length - pos - 1 }, (_, k) => pos + 1 + k);
    return scan(before, ['L', 'D']) && scan(after, ['R', 'D']);
  }
  if (cp === 0x200d) return pos > 0 && viramaBefore(cps[pos - 1]!);
  return false;
}

function validContextO(cps: number[], pos: number): boolean {
  const cp = cps[pos]!;
  const script = (c: number, name: string) => SCRIPTS[name]!(c);
  if (cp === 0x00b7) return pos > 0 && pos < cps.length - 1 && cps[pos - 1] === 0x6c && cps[pos + 1] === 0x6c;
  if (cp === 0x0375) return pos < cps.length - 1 && cps.length > 1 && script(cps[pos + 1]!, 'Greek');
  if (cp === 0x05f3 || cp === 0x05f4) return pos > 0 && script(cps[pos - 1]!, 'Hebrew');
  if (cp === 0x30fb) {
    return cps.some((c) => c !== 0x30fb && (script(c, 'Hiragana') || script(c, 'Katakana') || script(c, 'Han')));
  }
  if (cp >= 0x660 && cp <= 0x669) return !cps.some((c) => c >= 0x6f0 && c <= 0x6f9);
  if (cp >= 0x6f0 && cp <= 0x6f9) return !cps.some((c) => c >= 0x660 && c <= 0x669);
  return false;
}

function checkLabel(label: string): void {
  const cps = codePoints(label);
  if (cps.length === 0) throw new IDNAError('Empty Label');
  if (cps.length > MAX_DOMAIN + 1) throw new IDNAError('Label too long');
  if (label.normalize('NFC') !== label) throw new IDNAError('Label must be in Normalization Form C');
  if (cps.slice(2, 4).length === 2 && cps[2] === 0x2d && cps[3] === 0x2d)
    throw new IDNAError('Label has disallowed hyphens in 3rd and 4th position');
  if (cps[0] === 0x2d || cps[cps.length - 1] === 0x2d) throw new IDNAError('Label must not start or end with a hyphen');
  if (category(cps[0]!)[0] === 'M') throw new IDNAError('Label begins with an illegal combining character');
  cps.forEach((cp, pos) => {
    if (PVALID(cp)) return;
    if (CONTEXTJ(cp)) {
      let ok: boolean;
      try {
        ok = validContextJ(cps, pos);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new IDNAError(`Unknown codepoint adjacent to joiner ${unot(cp)} at position ${pos + 1} in ${pyRepr(label)}`);
      }
      if (!ok) throw new IDNAError(`Joiner ${unot(cp)} not allowed at position ${pos + 1} in ${pyRepr(label)}`);
    } else if (CONTEXTO(cp)) {
      if (!validContextO(cps, pos)) throw new IDNAError(`Codepoint ${unot(cp)} not allowed at position ${pos + 1} in ${pyRepr(label)}`);
    } else {
      throw new IDNAError(`Codepoint ${unot(cp)} at position ${pos + 1} of ${pyRepr(label)} not allowed`);
    }
  });
  checkBidi(label);
}

/** `idna.alabel(label)`: the A-label (ASCII) of one label. */
export function alabel(label: string): string {
  if (pyLength(label) > MAX_INPUT) throw new IDNAError('Label too long');
  if (isAscii(label)) {
    ulabel(label);
    if (label.length > 63) throw new IDNAError('Label too long');
    return label;
  }
  checkLabel(label);
  const encoded = `xn--${punycodeEncode(label)}`;
  if (encoded.length > 63) throw new IDNAError('Label too long');
  return encoded;
}

/** `idna.ulabel(label)`: the U-label (Unicode) of one label, checked. */
export function ulabel(label: string): string {
  if (pyLength(label) > MAX_INPUT) throw new IDNAError('Label too long');
  if (!isAscii(label)) {
    checkLabel(label);
    return label;
  }
  let ascii = asciiLower(label);
  if (!ascii.startsWith('xn--')) {
    checkLabel(ascii);
    return ascii;
  }
  ascii = ascii.slice(4);
  if (!ascii) throw new IDNAError('Malformed A-label, no Punycode eligible content found');
  if (ascii.endsWith('-')) throw new IDNAError('A-label must not end with a hyphen');
  let decoded: string;
  try {
    decoded = punycodeDecode(ascii);
  } catch {
    throw new IDNAError('Invalid A-label');
  }
  if (punycodeEncode(decoded) !== ascii) throw new IDNAError('A-label is not the canonical Punycode encoding of its U-label');
  checkLabel(decoded);
  return decoded;
}

function labelsOf(domain: string): { labels: string[]; trailingDot: boolean } {
  if (pyLength(domain) > MAX_INPUT) throw new IDNAError('Domain too long');
  if (pyLength(domain) > MAX_DOMAIN + 1) throw new IDNAError('Domain too long');
  const labels = domain.split(DOTS);
  if (labels.length === 1 && labels[0] === '') throw new IDNAError('Empty domain');
  const trailingDot = labels[labels.length - 1] === '';
  if (trailingDot) labels.pop();
  return { labels, trailingDot };
}

/** `idna.decode(domain)` (no UTS #46 mapping): each label to its U-label. */
export function decode(domain: string): string {
  const { labels, trailingDot } = labelsOf(domain);
  const result = labels.map((label) => {
    const u = ulabel(label);
    if (!u) throw new IDNAError('Empty label');
    return u;
  });
  if (trailingDot) result.push('');
  return result.join('.');
}

/** `idna.encode(domain)` (no UTS #46 mapping): each label to its A-label. */
export function encode(domain: string): string {
  const { labels, trailingDot } = labelsOf(domain);
  const result = labels.map((label) => {
    const a = alabel(label);
    if (!a) throw new IDNAError('Empty label');
    return a;
  });
  if (trailingDot) result.push('');
  const joined = result.join('.');
  if (joined.length > MAX_DOMAIN + (trailingDot ? 1 : 0)) throw new IDNAError('Domain too long');
  return joined;
}

// RFC 3492, as Python's encodings/punycode.py.
const BASE = 36;
const TMIN = 1;
const TMAX = 26;

function adapt(delta: number, first: boolean, numChars: number): number {
  delta = first ? Math.floor(delta / 700) : Math.floor(delta / 2);
  delta += Math.floor(delta / numChars);
  let divisions = 0;
  while (delta > ((BASE - TMIN) * TMAX) >> 1) {
    delta = Math.floor(delta / (BASE - TMIN));
    divisions += BASE;
  }
  return divisions + Math.floor(((BASE - TMIN + 1) * delta) / (delta + 38));
}

const threshold = (j: number, bias: number) => Math.min(Math.max(BASE * (j + 1) - bias, TMIN), TMAX);
const digit = (d: number) => String.fromCharCode(d < 26 ? 0x61 + d : 0x30 + d - 26);

export function punycodeEncode(text: string): string {
  const cps = codePoints(text);
  const basic = cps.filter((cp) => cp < 0x80);
  let out = String.fromCodePoint(...basic);
  if (basic.length > 0) out += '-';
  // Python's codec: for each new code point in increasing order, the deltas of its insertions.
  let n = 0x80;
  let delta = 0;
  let handled = basic.length;
  let bias = 72;
  let first = true;
  const sorted = [...new Set(cps.filter((cp) => cp >= 0x80))].sort((a, b) => a - b);
  for (const m of sorted) {
    delta += (m - n) * (handled + 1);
    n = m;
    for (const cp of cps) {
      if (cp < n) delta += 1;
      if (cp !== n) continue;
      let q = delta;
      for (let j = 0; ; j += 1) {
        const t = threshold(j, bias);
        if (q < t) break;
        out += digit(t + ((q - t) % (BASE - t)));
        q = Math.floor((q - t) / (BASE - t));
      }
      out += digit(q);
      bias = adapt(delta, first, handled + 1);
      first = false;
      delta = 0;
      handled += 1;
    }
    delta += 1;
    n += 1;
  }
  return out;
}

/**
 * Python's punycode decoder (strict errors): the basic code points before the last '-', then the
 * generalized integers (letters of either case, digits); exact big-integer arithmetic like Python's
 * ints, so only a result beyond U+10FFFF or a truncated or foreign digit fails.
 */
export function punycodeDecode(text: string): string {
  const lastDash = text.lastIndexOf('-');
  const base = lastDash === -1 ? '' : text.slice(0, lastDash);
  const extended = (lastDash === -1 ? text : text.slice(lastDash + 1)).toUpperCase();
  if (!isAscii(base) || !isAscii(extended)) throw new Error('not ASCII');
  const out = codePoints(base);
  let char = 0x80n;
  let pos = -1n;
  let bias = 72;
  let extpos = 0;
  while (extpos < extended.length) {
    // decode_generalized_number
    let next = extpos;
    let delta = 0n;
    let w = 1n;
    for (let j = 0; ; j += 1) {
      if (next >= extended.length) throw new Error('incomplete punicode string');
      const c = extended.charCodeAt(next);
      next += 1;
      let d: number;
      if (c >= 0x41 && c <= 0x5a) d = c - 0x41;
      else if (c >= 0x30 && c <= 0x39) d = c - 22;
      else throw new Error('Invalid extended code point');
      const t = threshold(j, bias);
      delta += BigInt(d) * w;
      if (d < t) break;
      w *= BigInt(BASE - t);
    }
    // insertion_sort
    pos += delta + 1n;
    const size = BigInt(out.length + 1);
    char += pos / size;
    if (char > 0x10ffffn) throw new Error('Invalid character');
    pos %= size;
    out.splice(Number(pos), 0, Number(char));
    bias = adapt(Number(delta), extpos === 0, out.length);
    extpos = next;
  }
  return String.fromCodePoint(...out);
}
