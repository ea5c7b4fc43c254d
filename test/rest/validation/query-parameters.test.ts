import { validateArguments } from '../../../src/api/contract/validation/validate-arguments';
import { errorsOf, fieldArgs, listReports, schema, SDL, variablesOf } from './helpers';

const TOKEN = 'a8098c1a-f86e-11da-bd1a-00112444be1e';

describe('query parameters: defaults and valid spellings', () => {
  it('applies the GraphQL defaults and leaves absent optional arguments out', () => {
    expect(variablesOf(listReports({}))).toEqual({ limit: 100, offset: 0, valid: true });
  });

  it.each([
    ['5', 5],
    [' 7 ', 7],
    ['+3', 3],
    ['1_000', 1000],
    ['10.0', 10],
    ['0', 0],
    ['007', 7],
  ])('Int %j → %j', (raw, expected) => {
    expect(variablesOf(listReports({ limit: raw })).limit).toBe(expected);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['On', true],
    ['t', true],
    ['Y', true],
    ['false', false],
    ['False', false],
    ['0', false],
    ['no', false],
    ['off', false],
    ['f', false],
    ['N', false],
  ])('Boolean %j → %j', (raw, expected) => {
    expect(variablesOf(listReports({ valid: raw })).valid).toBe(expected);
  });

  it.each([
    [TOKEN, TOKEN],
    [TOKEN.toUpperCase(), TOKEN],
    [TOKEN.replaceAll('-', ''), TOKEN],
    [`{${TOKEN}}`, TOKEN],
    [`urn:uuid:${TOKEN}`, TOKEN],
  ])('UUID %j → canonical lower case', (raw, expected) => {
    expect(variablesOf(listReports({ token: raw })).token).toBe(expected);
  });

  it.each([
    ['2024-01-15', '2024-01-15T00:00:00.000Z'],
    ['2024-01-15T10:30:00', '2024-01-15T10:30:00.000Z'],
    ['2024-01-15T10:30:00Z', '2024-01-15T10:30:00.000Z'],
    ['2024-01-15 10:30', '2024-01-15T10:30:00.000Z'],
    ['2024-01-15T10:30:00.123456+02:00', '2024-01-15T08:30:00.123Z'],
    ['2024-01-15T10:30:00-0530', '2024-01-15T16:00:00.000Z'],
    ['1700000000', '2023-11-14T22:13:20.000Z'],
    ['1700000000123', '2023-11-14T22:13:20.123Z'],
  ])('DateTimeISO %j → %s (a date alone or no offset = UTC; numbers are unix timestamps)', (raw, iso) => {
    const value = variablesOf(listReports({ created_at__gte: raw })).created_at__gte;
    expect(value).toBeInstanceOf(Date);
    expect((value as Date).toISOString()).toBe(iso);
  });

  it('JSON: the URL-decoded text is parsed', () => {
    const raw = '{"folder_sold":{"status":true},"n":[1,2.5,null]}';
    expect(variablesOf(listReports({ data__contains: raw })).data__contains).toEqual({
      folder_sold: { status: true },
      n: [1, 2.5, null],
    });
    expect(variablesOf(listReports({ data__contains: '"x"' })).data__contains).toBe('x');
  });

  it('enum: the value spelling gives the GraphQL enum name', () => {
    expect(variablesOf(listReports({ type: 'counter_inspection' })).type).toBe('counter_inspection');
  });

  it('String: anything goes, even empty', () => {
    expect(variablesOf(listReports({ vin: '' })).vin).toBe('');
  });

  it('a repeated key gives the last value for a scalar argument (Starlette) and every value for a list', () => {
    expect(variablesOf(listReports({ limit: ['5', '6'] })).limit).toBe(6);
    expect(variablesOf(listReports({ tokens: [TOKEN, TOKEN.toUpperCase()] })).tokens).toEqual([TOKEN, TOKEN]);
    expect(variablesOf(listReports({ tokens: TOKEN })).tokens).toEqual([TOKEN]);
  });

  it('ignores unknown query parameters, like FastAPI', () => {
    expect(variablesOf(listReports({ nope: 'x', limit: '3' }))).toEqual({ limit: 3, offset: 0, valid: true });
  });
});

describe('query parameters: Pydantic v2 errors', () => {
  it('Int: int_parsing', () => {
    expect(errorsOf(listReports({ limit: 'abc' }))).toEqual([
      {
        type: 'int_parsing',
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'abc',
      },
    ]);
    // A decimal string is int_parsing too (int_from_float is for real floats, in a body).
    expect(errorsOf(listReports({ limit: '1.5' }))[0]).toMatchObject({ type: 'int_parsing', input: '1.5' });
    expect(errorsOf(listReports({ limit: '' }))[0]).toMatchObject({ type: 'int_parsing', input: '' });
  });

  it('Int constraints: greater_than_equal / less_than_equal with ctx', () => {
    expect(errorsOf(listReports({ limit: '-1', offset: '-5' }))).toEqual([
      {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 0',
        input: '-1',
        ctx: { ge: 0 },
      },
      {
        type: 'greater_than_equal',
        loc: ['query', 'offset'],
        msg: 'Input should be greater than or equal to 0',
        input: '-5',
        ctx: { ge: 0 },
      },
    ]);
    expect(errorsOf(listReports({ limit: '1001' }))).toEqual([
      {
        type: 'less_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 1000',
        input: '1001',
        ctx: { le: 1000 },
      },
    ]);
    expect(variablesOf(listReports({ limit: '1000', offset: '0' })).limit).toBe(1000);
  });

  it('Int beyond 32 bits: refused with a bound error (GraphQL Int), not a 500', () => {
    expect(errorsOf(listReports({ offset: '99999999999' }))).toEqual([
      {
        type: 'less_than_equal',
        loc: ['query', 'offset'],
        msg: 'Input should be less than or equal to 2147483647',
        input: '99999999999',
        ctx: { le: 2147483647 },
      },
    ]);
  });

  it('Float: float_parsing', () => {
    expect(errorsOf(listReports({ score: 'x1' }))).toEqual([
      {
        type: 'float_parsing',
        loc: ['query', 'score'],
        msg: 'Input should be a valid number, unable to parse string as a number',
        input: 'x1',
      },
    ]);
    expect(variablesOf(listReports({ score: ' 2.5e1 ' })).score).toBe(25);
  });

  it.each(['maybe', '', ' true', '2', 'truee'])('Boolean %j: bool_parsing', (raw) => {
    expect(errorsOf(listReports({ valid: raw }))).toEqual([
      {
        type: 'bool_parsing',
        loc: ['query', 'valid'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: raw,
      },
    ]);
  });

  it.each([
    ['x', 'invalid character: found `x` at 1'],
    ['abc', 'invalid length: expected length 32 for simple format, found 3'],
    ['a8098c1a-f86e-11da-bd1a', 'invalid group count: expected 5, found 4'],
    ['a8098c1a-f86e-11da-bd1a-00112444be1', 'invalid group length in group 4: expected 12, found 11'],
    ['1234567-81234-1234-1234-123456789012', 'invalid group length in group 0: expected 8, found 7'],
    ['a8098c1a-f86e-11da-bd1a-00112444be1g', 'invalid character: found `g` at 36'],
    ['a8098c1a-f86e-11da-bd1a-00112444bé1e', 'invalid character: found `é` at 34'],
    ['{a8098c1a-f86e-11da-bd1a-00112444be1e', 'invalid character: found `{` at 1'],
  ])('UUID %j: uuid_parsing "%s"', (raw, reason) => {
    expect(errorsOf(listReports({ token: raw }))).toEqual([
      {
        type: 'uuid_parsing',
        loc: ['query', 'token'],
        msg: `Input should be a valid UUID, ${reason}`,
        input: raw,
        ctx: { error: reason },
      },
    ]);
  });

  it.each([
    ['x', 'input is too short'],
    ['12:00', 'input is too short'],
    ['abcd-01-15', 'invalid character in year'],
    ['2024/01/15', 'invalid date separator, expected `-`'],
    ['2024-0a-15', 'invalid character in month'],
    ['2024-01-1a', 'invalid character in day'],
    ['2024-13-01', 'month value is outside expected range of 1-12'],
    ['2023-02-29', 'day value is outside expected range'],
    // A bad time: the datetime parse fails, then the date parse reports the extra characters.
    ['2024-01-15T25:00:00', 'unexpected extra characters at the end of the input'],
    ['2024-01-15T10:00:00+25:00', 'unexpected extra characters at the end of the input'],
    ['1700000000.5x', 'invalid date separator, expected `-`'],
    ['-99999999999999999', 'dates before 0000 are not supported as unix timestamps'],
  ])('DateTimeISO %j: datetime_from_date_parsing "%s"', (raw, reason) => {
    expect(errorsOf(listReports({ created_at__gte: raw }))).toEqual([
      {
        type: 'datetime_from_date_parsing',
        loc: ['query', 'created_at__gte'],
        msg: `Input should be a valid datetime or date, ${reason}`,
        input: raw,
        ctx: { error: reason },
      },
    ]);
  });

  it.each([
    ['x', 'expected value at line 1 column 1'],
    ['{', 'EOF while parsing an object at line 1 column 1'],
    ['{"a":', 'EOF while parsing a value at line 1 column 5'],
    ['{"a":1,}', 'trailing comma at line 1 column 8'],
    ['[1 2]', 'expected `,` or `]` at line 1 column 4'],
    ['{a:1}', 'key must be a string at line 1 column 2'],
    ['tru', 'EOF while parsing a value at line 1 column 3'],
    ['{"a":1}x', 'trailing characters at line 1 column 8'],
    ['', 'EOF while parsing a value at line 1 column 0'],
  ])('JSON %j: json_invalid "%s"', (raw, reason) => {
    expect(errorsOf(listReports({ data__contains: raw }))).toEqual([
      {
        type: 'json_invalid',
        loc: ['query', 'data__contains'],
        msg: `Invalid JSON: ${reason}`,
        input: raw,
        ctx: { error: reason },
      },
    ]);
  });

  it('enum: enum with the expected values joined by ", " and " or "', () => {
    const expected = "'inspection', 'counter_inspection', 'after_sale' or 'marketing'";
    expect(errorsOf(listReports({ type: 'INSPECTION' }))).toEqual([
      { type: 'enum', loc: ['query', 'type'], msg: `Input should be ${expected}`, input: 'INSPECTION', ctx: { expected } },
    ]);
  });

  it('reports every failing parameter at once, in argument order', () => {
    const errors = errorsOf(
      listReports({
        vin: 'ok',
        type: 'nope',
        valid: 'maybe',
        limit: 'abc',
        token: 'x',
        created_at__gte: 'yesterday',
        data__contains: '{',
      }),
    );
    expect(errors.map((e) => [e.type, e.loc])).toEqual([
      ['int_parsing', ['query', 'limit']],
      ['bool_parsing', ['query', 'valid']],
      ['uuid_parsing', ['query', 'token']],
      ['datetime_from_date_parsing', ['query', 'created_at__gte']],
      ['enum', ['query', 'type']],
      ['json_invalid', ['query', 'data__contains']],
    ]);
  });

  it('a list item error has its index in loc', () => {
    expect(errorsOf(listReports({ tokens: ['a8098c1a-f86e-11da-bd1a-00112444be1e', 'x'] }))).toEqual([
      expect.objectContaining({ type: 'uuid_parsing', loc: ['query', 'tokens', 1], input: 'x' }),
    ]);
  });
});

describe('path parameters and required arguments', () => {
  const reportArgs = fieldArgs(schema, 'Query', 'report');
  const validateReport = (path: Record<string, string>) =>
    validateArguments({ args: reportArgs, locationOf: () => 'path', query: {}, path, body: undefined });

  it('coerces a path UUID', () => {
    expect(variablesOf(validateReport({ report_id: TOKEN.toUpperCase() }))).toEqual({ report_id: TOKEN });
  });

  it('a bad path UUID is reported under "path"', () => {
    expect(errorsOf(validateReport({ report_id: 'nope' }))).toEqual([
      expect.objectContaining({ type: 'uuid_parsing', loc: ['path', 'report_id'], input: 'nope' }),
    ]);
  });

  it('a missing required parameter: missing, input null (FastAPI get_missing_field_error)', () => {
    expect(errorsOf(validateReport({}))).toEqual([{ type: 'missing', loc: ['path', 'report_id'], msg: 'Field required', input: null }]);
    const asQuery = validateArguments({ args: reportArgs, locationOf: () => 'query', query: {}, path: {}, body: undefined });
    expect(errorsOf(asQuery)).toEqual([{ type: 'missing', loc: ['query', 'report_id'], msg: 'Field required', input: null }]);
  });

  it('header arguments are read under their hyphenated lower-case name', () => {
    const args = fieldArgs(schema, 'Query', 'report');
    const result = validateArguments({
      args,
      locationOf: () => 'header',
      query: {},
      path: {},
      body: undefined,
      headers: {},
    });
    expect(errorsOf(result)).toEqual([{ type: 'missing', loc: ['header', 'report-id'], msg: 'Field required', input: null }]);
  });

  it('orders errors like FastAPI: path, then query, then body', () => {
    const args = fieldArgs(schema, 'Query', 'reports');
    const result = validateArguments({
      args,
      locationOf: (name) => (name === 'token' ? 'path' : 'query'),
      query: { limit: 'x' },
      path: { token: 'y' },
      body: undefined,
    });
    expect(errorsOf(result).map((e) => e.loc)).toEqual([
      ['path', 'token'],
      ['query', 'limit'],
    ]);
  });
});

describe('a new argument needs no code change', () => {
  it('validates an argument added to the schema by its type alone', () => {
    const extended = SDL.replace('vin: String', 'vin: String\n      since_days: Int!\n      archived: Boolean = false');
    expect(errorsOf(listReports({}, extended))).toEqual([
      { type: 'missing', loc: ['query', 'since_days'], msg: 'Field required', input: null },
    ]);
    expect(errorsOf(listReports({ since_days: 'ten', archived: 'nah' }, extended))).toEqual([
      expect.objectContaining({ type: 'int_parsing', loc: ['query', 'since_days'], input: 'ten' }),
      expect.objectContaining({ type: 'bool_parsing', loc: ['query', 'archived'], input: 'nah' }),
    ]);
    expect(variablesOf(listReports({ since_days: '10' }, extended))).toMatchObject({ since_days: 10, archived: false });
  });
});
