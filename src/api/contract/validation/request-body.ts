/**
 * A request body as FastAPI reads it. Only a JSON content type (`application/json` or
 * `application/*+json`, any case, any parameters) is parsed as JSON; any other body, or none
 * declared, reaches validation as text (then `model_attributes_type`). JSON bytes are decoded as
 * Python's `json.loads(bytes)` does (`json.detect_encoding`): a BOM or the pattern of NUL bytes
 * picks UTF-8, UTF-16 or UTF-32; bytes that do not decode are Starlette's 400 "There was an error
 * parsing the body". Like `json.loads`, which decodes with `surrogatepass`, an encoded lone surrogate
 * (UTF-8 `ED A0 80`, a lone UTF-16 code unit) is read as that surrogate, not refused: the field
 * holding it is then refused as any `\ud800` escape is, a 422 on that field.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type = ''] = header.split(';');
  const [main, sub = ''] = type.trim().toLowerCase().split('/');
  return main === 'application' && (sub === 'json' || sub.endsWith('+json'));
}

type Encoding = 'utf-8' | 'utf-8-sig' | 'utf-16' | 'utf-16-be' | 'utf-16-le' | 'utf-32' | 'utf-32-be' | 'utf-32-le';

/** Python's `json.detect_encoding`. */
function detectEncoding(b: Uint8Array): Encoding {
  const startsWith = (...bytes: number[]) => bytes.every((byte, i) => b[i] === byte);
  if (startsWith(0x00, 0x00, 0xfe, 0xff) || startsWith(0xff, 0xfe, 0x00, 0x00)) return 'utf-32';
  if (startsWith(0xfe, 0xff) || startsWith(0xff, 0xfe)) return 'utf-16';
  if (startsWith(0xef, 0xbb, 0xbf)) return 'utf-8-sig';
  if (b.length >= 4) {
    if (!b[0]) return b[1] ? 'utf-16-be' : 'utf-32-be';
    if (!b[1]) return b[2] || b[3] ? 'utf-16-le' : 'utf-32-le';
  } else if (b.length === 2) {
    if (!b[0]) return 'utf-16-be';
    if (!b[1]) return 'utf-16-le';
  }
  return 'utf-8';
}

function decodeUtf32(b: Uint8Array, littleEndian: boolean): string {
  if (b.length % 4 !== 0) throw new RangeError('truncated UTF-32');
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let text = '';
  for (let i = 0; i < b.length; i += 4) text += String.fromCodePoint(view.getUint32(i, littleEndian));
  return text;
}

const decode = (label: string, bytes: Uint8Array) => new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes);

/** UTF-8 with Python's `surrogatepass`: `ED A0..BF 80..BF` is a surrogate code unit (TextDecoder refuses it). */
function decodeUtf8(b: Uint8Array): string {
  let text = '';
  let start = 0;
  for (let i = 0; i + 2 < b.length; i += 1) {
    if (b[i] !== 0xed || b[i + 1]! < 0xa0 || b[i + 1]! > 0xbf || b[i + 2]! < 0x80 || b[i + 2]! > 0xbf) continue;
    // 0xED can only lead a sequence, never continue one: the bytes before decode on their own.
    text += decode('utf-8', b.subarray(start, i)) + String.fromCharCode(0xd000 | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f));
    start = i + 3;
    i += 2;
  }
  return text + decode('utf-8', b.subarray(start));
}

/** UTF-16 with `surrogatepass`: every code unit as it is, paired or not; an odd byte count does not decode. */
function decodeUtf16(b: Uint8Array, littleEndian: boolean): string {
  if (b.length % 2 !== 0) throw new RangeError('truncated UTF-16');
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const units: string[] = [];
  for (let i = 0; i < b.length; i += 2) units.push(String.fromCharCode(view.getUint16(i, littleEndian)));
  return units.join('');
}

/** The text of a JSON body, or undefined when its bytes do not decode. */
export function decodeJsonBytes(bytes: Uint8Array): string | undefined {
  try {
    switch (detectEncoding(bytes)) {
      case 'utf-8-sig':
        return decodeUtf8(bytes.subarray(3));
      case 'utf-16':
        return decodeUtf16(bytes.subarray(2), bytes[0] === 0xff);
      case 'utf-16-be':
        return decodeUtf16(bytes, false);
      case 'utf-16-le':
        return decodeUtf16(bytes, true);
      case 'utf-32':
        return decodeUtf32(bytes.subarray(4), bytes[0] === 0xff);
      case 'utf-32-be':
        return decodeUtf32(bytes, false);
      case 'utf-32-le':
        return decodeUtf32(bytes, true);
      default:
        return decodeUtf8(bytes);
    }
  } catch {
    return undefined;
  }
}
