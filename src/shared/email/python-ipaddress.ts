/**
 * Python's `ipaddress.IPv4Address(str)` / `IPv6Address(str)` parsing, for its error messages only:
 * email-validator parses a bracketed domain literal (`a@[1.2.3.4]`) and quotes the parser's reason
 * before it refuses literals altogether (Pydantic never allows them), so only the reasons matter.
 * Throws `AddressValueError` with Python's text; returns nothing when the address parses.
 */
import { pyRepr } from './python-unicode';

export class AddressValueError extends Error {}

const isAsciiDigits = (s: string) => /^[0-9]+$/.test(s);

export function parseIPv4(address: string): void {
  if (address.includes('/')) throw new AddressValueError(`Unexpected '/' in ${pyRepr(address)}`);
  ipv4IntFromString(address);
}

function ipv4IntFromString(ip: string): number {
  if (!ip) throw new AddressValueError('Address cannot be empty');
  const octets = ip.split('.');
  if (octets.length !== 4) throw new AddressValueError(`Expected 4 octets in ${pyRepr(ip)}`);
  let value = 0;
  for (const octet of octets) {
    try {
      value = value * 256 + parseOctet(octet);
    } catch (error) {
      throw new AddressValueError(`${(error as Error).message} in ${pyRepr(ip)}`);
    }
  }
  return value;
}

function parseOctet(octet: string): number {
  if (!octet) throw new Error('Empty octet not permitted');
  // Python: `isascii() and isdigit()`, which for ASCII is 0-9.
  if (!isAsciiDigits(octet)) throw new Error(`Only decimal digits permitted in ${pyRepr(octet)}`);
  if (octet.length > 3) throw new Error(`At most 3 characters permitted in ${pyRepr(octet)}`);
  if (octet !== '0' && octet[0] === '0') throw new Error(`Leading zeros are not permitted in ${pyRepr(octet)}`);
  const value = Number(octet);
  if (value > 255) throw new Error(`Octet ${value} (> 255) not permitted`);
  return value;
}

const HEXTETS = 8;

export function parseIPv6(address: string): void {
  if (address.includes('/')) throw new AddressValueError(`Unexpected '/' in ${pyRepr(address)}`);
  // _split_scope_id: `addr%scope`, the scope neither empty nor holding another '%'.
  const percent = address.indexOf('%');
  let ip = address;
  if (percent >= 0) {
    const scope = address.slice(percent + 1);
    if (!scope || scope.includes('%')) throw new AddressValueError(`Invalid IPv6 address: "${pyRepr(address)}"`);
    ip = address.slice(0, percent);
  }
  ipv6IntFromString(ip);
}

function ipv6IntFromString(ip: string): void {
  if (!ip) throw new AddressValueError('Address cannot be empty');
  const parts = ip.split(':');
  if (parts.length < 3) throw new AddressValueError(`At least 3 parts expected in ${pyRepr(ip)}`);
  if (parts[parts.length - 1]!.includes('.')) {
    let v4: number;
    try {
      v4 = ipv4IntFromString(parts.pop()!);
    } catch (error) {
      throw new AddressValueError(`${(error as Error).message} in ${pyRepr(ip)}`);
    }
    parts.push(Math.floor(v4 / 65536).toString(16), (v4 % 65536).toString(16));
  }
  if (parts.length > HEXTETS + 1) throw new AddressValueError(`At most ${HEXTETS} colons permitted in ${pyRepr(ip)}`);
  let skip: number | undefined;
  for (let i = 1; i < parts.length - 1; i += 1) {
    if (parts[i]) continue;
    if (skip !== undefined) throw new AddressValueError(`At most one '::' permitted in ${pyRepr(ip)}`);
    skip = i;
  }
  let [hi, lo] = [parts.length, 0];
  if (skip !== undefined) {
    [hi, lo] = [skip, parts.length - skip - 1];
    if (!parts[0]) {
      hi -= 1;
      if (hi) throw new AddressValueError(`Leading ':' only permitted as part of '::' in ${pyRepr(ip)}`);
    }
    if (!parts[parts.length - 1]) {
      lo -= 1;
      if (lo) throw new AddressValueError(`Trailing ':' only permitted as part of '::' in ${pyRepr(ip)}`);
    }
    if (HEXTETS - (hi + lo) < 1) throw new AddressValueError(`Expected at most ${HEXTETS - 1} other parts with '::' in ${pyRepr(ip)}`);
  } else {
    if (parts.length !== HEXTETS) throw new AddressValueError(`Exactly ${HEXTETS} parts expected without '::' in ${pyRepr(ip)}`);
    if (!parts[0]) throw new AddressValueError(`Leading ':' only permitted as part of '::' in ${pyRepr(ip)}`);
    if (!parts[parts.length - 1]) throw new AddressValueError(`Trailing ':' only permitted as part of '::' in ${pyRepr(ip)}`);
  }
  try {
    for (const part of [...parts.slice(0, hi), ...parts.slice(parts.length - lo)]) parseHextet(part);
  } catch (error) {
    throw new AddressValueError(`${(error as Error).message} in ${pyRepr(ip)}`);
  }
}

function parseHextet(hextet: string): void {
  if (!/^[0-9A-Fa-f]*$/.test(hextet)) throw new Error(`Only hex digits permitted in ${pyRepr(hextet)}`);
  if (hextet.length > 4) throw new Error(`At most 4 characters permitted in ${pyRepr(hextet)}`);
  // An empty hextet passes here as in Python (`int('', 16)` would raise, but the checks above
  // leave no empty part in the ranges parsed).
}
