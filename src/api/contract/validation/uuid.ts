/**
 * UUID parsing as pydantic-core does it: `Uuid::parse_str` from the Rust `uuid` crate
 * (src/parser.rs `try_parse`), and on failure the crate's diagnostic (src/error.rs
 * `InvalidUuid::into_err` + `impl Display for Error`). Messages and the quirks below were
 * checked against pydantic-core 2.46.4 (which ships uuid 1.x).
 */

export type UuidParse = { ok: true; value: string } | { ok: false; reason: string };

const HEX = /^[0-9a-fA-F]$/;
const HYPHENATED = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** The simple, hyphenated, `{braced}` and `urn:uuid:` forms. */
const ACCEPTED = new RegExp(`^(?:[0-9a-fA-F]{32}|${HYPHENATED}|\\{${HYPHENATED}\\}|urn:uuid:${HYPHENATED})$`);
const URN_PREFIX = 'urn:uuid:';

/** Accepts the forms of ACCEPTED; returns the canonical lower-case form. */
export function parseUuid(input: string): UuidParse {
  if (!ACCEPTED.test(input)) return { ok: false, reason: describeInvalidUuid(input) };
  const hex = input.replace(/^urn:uuid:|[{}-]/g, '').toLowerCase();
  return { ok: true, value: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
}

const GROUP_STARTS = [0, 9, 14, 19, 24] as const;
const GROUP_LENGTHS = [8, 4, 4, 4, 12] as const;

/** Port of `InvalidUuid::into_err` + Display. Indices are 1-based UTF-8 byte offsets. */
function describeInvalidUuid(input: string): string {
  const braced = input.length >= 2 && input.startsWith('{') && input.endsWith('}');
  const urn = !braced && input.startsWith(URN_PREFIX);
  const offset = braced ? 1 : urn ? URN_PREFIX.length : 0;
  const body = braced ? input.slice(1, -1) : input.slice(offset);
  const simple = !braced && !urn;

  let hyphenCount = 0;
  const groupBounds = [0, 0, 0, 0];
  let byteIndex = 0;
  for (const character of body) {
    if (character === '-') {
      if (hyphenCount < 4) groupBounds[hyphenCount] = byteIndex;
      hyphenCount += 1;
    } else if (!HEX.test(character)) {
      return `invalid character: found \`${character}\` at ${byteIndex + offset + 1}`;
    }
    byteIndex += Buffer.byteLength(character, 'utf8');
  }

  if (hyphenCount === 0 && simple) {
    return `invalid length: expected length 32 for simple format, found ${Buffer.byteLength(input, 'utf8')}`;
  }
  if (hyphenCount !== 4) {
    return `invalid group count: expected 5, found ${hyphenCount + 1}`;
  }
  for (let group = 0; group < 4; group++) {
    if (groupBounds[group] !== GROUP_STARTS[group + 1]! - 1) {
      return groupLengthMessage(group, groupBounds[group]! - GROUP_STARTS[group]!);
    }
  }
  // The crate measures the last group against the whole input, braces or `urn:uuid:`
  // included; kept as is so the numbers match.
  return groupLengthMessage(4, Buffer.byteLength(input, 'utf8') - GROUP_STARTS[4]);
}

function groupLengthMessage(group: number, found: number): string {
  return `invalid group length in group ${group}: expected ${GROUP_LENGTHS[group]}, found ${found}`;
}
