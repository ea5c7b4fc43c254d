/**
 * Values a careless or malicious client sends: strings that break parsers, encoders, SQL and
 * PostgreSQL's text type (NUL, lone surrogates), numbers out of every range, JSON that is deep,
 * huge or shaped to pollute prototypes. Shared by the REST and GraphQL request generators.
 */
import fc from 'fast-check';

/** The value with probability 1/n, else null (fc.option's `freq` is the odds of null, the other way round). */
export const oneIn = <T>(n: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '   \t ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '\udbff\udfff',
  '\ufffe\uffff',
  '\u202egnp.exe',
  '\u200b\u200d\u2060',
  '\ufeff',
  'مرحبا \u202b ‏עברית',
  'Ω≈ç√∫˜µ≤≥÷',
  '😀👨‍👩‍👧‍👦🏳️‍🌈',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫ g̢̔o̗',
  '\r\n',
  '\n\nX-Injected: 1',
  "' OR 1=1--",
  "' OR '1'='1",
  '"; DROP TABLE reports; --',
  "'); DELETE FROM reports; --",
  '1; SELECT pg_sleep(5)--',
  '\\',
  '\\\\%_',
  '%',
  '_',
  '%%',
  '%00',
  '%ZZ',
  '*',
  '$1',
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  'NaN',
  'Infinity',
  '-Infinity',
  'null',
  'undefined',
  'true',
  'yes',
  'on',
  '1e309',
  '-1e309',
  '99999999999999999999',
  '-99999999999999999999',
  '9007199254740993',
  '2147483648',
  '-2147483649',
  '-1',
  '-0',
  '0x10',
  '1_000',
  ' 1 ',
  '1.0',
  '1.5',
  '١٢٣',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '{00000000-0000-0000-0000-000000000000}',
  'urn:uuid:00000000-0000-0000-0000-000000000000',
  '2026-02-30',
  '2026-13-01T00:00:00Z',
  '0000-01-01',
  '9999-12-31T23:59:59.999999+14:00',
  '275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-01-01T25:61:61Z',
  '1700000000',
  '-62135596800',
  'folder_sold',
  '-created_at',
  'created_at,created_at',
  ',,,',
  '-',
  'ÿ',
];

/** What PostgreSQL's text and jsonb cannot hold: NUL, unpaired surrogates. */
export const UNSTORABLE_STRINGS: readonly string[] = [
  '\u0000',
  'vin\u0000',
  'Jeanne\u0000Client',
  '\ud800',
  'x\udc00y',
  '\udfff\ud800',
  '😀\ud83d',
];

/** Any UTF-16 code units, lone surrogates and NUL included. */
const anyCodeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 20 });

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 4, arbitrary: fc.constantFrom(...UNSTORABLE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: anyCodeUnits },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  // long: a few kB, sometimes far beyond any column's sensible length
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('a', 'é', '😀', '%', '\u0000'), fc.integer({ min: 256, max: 20_000 })).map(([c, n]) => c.repeat(n)),
  },
);

export const hostileNumberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '-1',
    '1000',
    '1001',
    '2147483647',
    '2147483648',
    '-2147483648',
    '1e309',
    '99999999999999999999',
    'NaN',
    '1.5',
    '1e3',
    '0x1',
    '',
    '+1',
    '٣',
  ),
  fc.double().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
);

/** Arrays or objects nested `depth` times around a leaf: parsers and walkers that recurse overflow. */
export function nestedJsonText(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const array = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    open += array ? '[' : '{"a":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

/** JSON text: ordinary values, deep nesting, huge arrays, prototype keys, hostile strings. */
/** Values of a JSON filter other than an object: non-JSON numbers, scalars, arrays, deep nesting. */
export const JSON_FILTER_SCALARS = [
  'NaN',
  '-NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '-0',
  '0',
  '1',
  '1.5',
  'true',
  'false',
  'null',
  '"x"',
  '""',
  '[]',
  '[1,2]',
  '[NaN]',
  '[{"a":1}]',
  '{"vehicle":NaN}',
  '{"vehicle":[Infinity]}',
  '{"vehicle":{"brand":[1,{"a":null}]}}',
  `${'{"a":'.repeat(200)}1${'}'.repeat(200)}`,
  `${'['.repeat(500)}${']'.repeat(500)}`,
];

export const hostileJsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: hostileString.map((s) => JSON.stringify({ vehicle: { vin: s } })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 2, max: 5000 }), fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>)
      .map(([depth, kind]) => nestedJsonText(depth, kind)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((n) => `[${Array.from({ length: n }, (_, i) => i % 7).join(',')}]`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"__proto__":null,"vehicle":{"__proto__":{"vin":"x"}}}',
      '{"a":"\\u0000"}',
      '{"\\u0000":1}',
      '"\\ud800"',
      '{"a":"\\udc00\\ud800"}',
      '{"a":1e309}',
      '{"a":-1e309}',
      '{"a":NaN}',
      '[Infinity,-Infinity]',
      '{"a":123456789012345678901234567890}',
      '{"a":1,"a":2}',
      '{"folder_sold":{"status":true}}',
      // Python's json reads these; a filter must be an object and NaN never matches (issue 24)
      'NaN',
      'Infinity',
      '-Infinity',
      '[1,2]',
      '"x"',
      '1',
      'true',
      '{"folder_sold":{"status":NaN}}',
      '{"a":{"b":[Infinity]}}',
    ),
  },
  // JSON filter values that are not objects (issue 22: `state__contains=NaN` was a 500)
  { weight: 2, arbitrary: fc.constantFrom(...JSON_FILTER_SCALARS) },
  // not JSON at all, or broken JSON
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '[1,]',
      '{"a":}',
      "{'a':1}",
      'tru',
      '01',
      '1.',
      '"unterminated',
      '{"a":1}}',
      '\ufeff{}',
      '{"a":"\t"}',
    ),
  },
  { weight: 1, arbitrary: hostileString },
);
