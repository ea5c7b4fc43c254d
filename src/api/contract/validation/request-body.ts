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

/** UTF-16 and UTF-32 with `surrogatepass`: every unit as it is, paired or not; a truncated unit does not decode. */
function decodeUnits(b: Uint8Array, width: 2 | 4, littleEndian: boolean): string {
  if (b.length % width !== 0) throw new RangeError(`truncated UTF-${width * 8}`);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let text = '';
  for (let i = 0; i < b.length; i += width) {
    text += width === 2 ? String.fromCharCode(view.getUint16(i, littleEndian)) : String.fromCodePoint(view.getUint32(i, littleEndian));
  }
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

/** The text of a JSON body, or undefined when its bytes do not decode; the encoding is Python's `json.detect_encoding`. */
export function decodeJsonBytes(b: Uint8Array): string | undefined {
  const startsWith = (...bytes: number[]) => bytes.every((byte, i) => b[i] === byte);
  try {
    if (startsWith(0x00, 0x00, 0xfe, 0xff) || startsWith(0xff, 0xfe, 0x00, 0x00)) return decodeUnits(b.subarray(4), 4, b[0] === 0xff);
    if (startsWith(0xfe, 0xff) || startsWith(0xff, 0xfe)) return decodeUnits(b.subarray(2), 2, b[0] === 0xff);
    if (startsWith(0xef, 0xbb, 0xbf)) return decodeUtf8(b.subarray(3));
    if (b.length >= 4) {
      if (!b[0]) return b[1] ? decodeUnits(b, 2, false) : decodeUnits(b, 4, false);
      if (!b[1]) return b[2] || b[3] ? decodeUnits(b, 2, true) : decodeUnits(b, 4, true);
    } else if (b.length === 2) {
      if (!b[0]) return decodeUnits(b, 2, false);
      if (!b[1]) return decodeUnits(b, 2, true);
    }
    return decodeUtf8(b);
  } catch {
    return undefined;
  }
}
