import { jsonDecodeError, parseJsonBody, pythonJsonLoads } from '../../../src/api/contract/validation/json-body';
import { decodeJsonBytes } from '../../../src/api/contract/validation/request-body';
import { createLead, errorsOf, variablesOf } from './helpers';

const DEALERSHIP = 'a8098c1a-f86e-11da-bd1a-00112444be1e';

describe('JSON body arguments', () => {
  it('applies defaults and coerces', () => {
    expect(variablesOf(createLead({ dealership: DEALERSHIP.toUpperCase(), email: 'a@b.c', unknown: 1 }))).toEqual({
      dealership: DEALERSHIP,
      email: 'a@b.c',
      lang: 'fr',
      sendEmail: false,
      sendPhone: false,
    });
  });

  it('Pydantic lax mode in a body: "yes", 1 and 1.0 are booleans; "7" and 7.0 are integers', () => {
    const v = variablesOf(createLead({ dealership: DEALERSHIP, sendEmail: 'yes', sendPhone: 1, count: '7' }));
    expect(v).toMatchObject({ sendEmail: true, sendPhone: true, count: 7 });
    expect(variablesOf(createLead({ dealership: DEALERSHIP, sendEmail: 1.0, count: 7.0 }))).toMatchObject({
      sendEmail: true,
      count: 7,
    });
  });

  it('JSON argument in a body takes any JSON value as is', () => {
    expect(variablesOf(createLead({ dealership: DEALERSHIP, extra: '{not json' })).extra).toBe('{not json');
    expect(variablesOf(createLead({ dealership: DEALERSHIP, extra: [1, { a: null }] })).extra).toEqual([1, { a: null }]);
  });

  it('bytes decode as json.loads decodes them (surrogatepass): an encoded lone surrogate is read, not a 400', () => {
    expect(decodeJsonBytes(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).toBe('"\ud800"');
    expect(decodeJsonBytes(Buffer.from([0xef, 0xbb, 0xbf, 0x22, 0xed, 0xbf, 0xbf, 0xc3, 0xa9, 0x22]))).toBe('"\udfffé"');
    expect(decodeJsonBytes(Buffer.from([0xff, 0xfe, 0x22, 0x00, 0x00, 0xd8, 0x22, 0x00]))).toBe('"\ud800"');
    expect(decodeJsonBytes(Buffer.from([0x22, 0x00, 0x3d, 0xd8, 0x00, 0xde, 0x22, 0x00]))).toBe('"😀"');
    expect(decodeJsonBytes(Buffer.from('"é😀"'))).toBe('"é😀"');
    // Still refused, as by Python: other bytes that are not UTF-8, a truncated sequence, an odd UTF-16 length.
    expect(decodeJsonBytes(Buffer.from([0x22, 0xff, 0x22]))).toBeUndefined();
    expect(decodeJsonBytes(Buffer.from([0x22, 0xe2, 0x82, 0xed, 0xa0, 0x80, 0x22]))).toBeUndefined();
    expect(decodeJsonBytes(Buffer.from([0xff, 0xfe, 0x22, 0x00, 0x22]))).toBeUndefined();
  });

  it('null is fine for a nullable argument', () => {
    expect(variablesOf(createLead({ dealership: DEALERSHIP, email: null })).email).toBeNull();
  });

  it('a missing required field: missing, with the whole body as input (Pydantic model)', () => {
    const body = { email: 'a@b.c' };
    expect(errorsOf(createLead(body))).toEqual([{ type: 'missing', loc: ['body', 'dealership'], msg: 'Field required', input: body }]);
  });

  it('wrong JSON types give the type errors of Pydantic, all at once', () => {
    const errors = errorsOf(
      createLead({
        dealership: 12,
        email: 5,
        lang: 'xx',
        sendEmail: 'maybe',
        sendPhone: null,
        count: 1.5,
        custom_sms: 'x'.repeat(481),
      }),
    );
    expect(errors).toEqual([
      { type: 'uuid_type', loc: ['body', 'dealership'], msg: 'UUID input should be a string, bytes or UUID object', input: 12 },
      { type: 'string_type', loc: ['body', 'email'], msg: 'Input should be a valid string', input: 5 },
      {
        type: 'enum',
        loc: ['body', 'lang'],
        msg: "Input should be 'fr', 'en' or 'es'",
        input: 'xx',
        ctx: { expected: "'fr', 'en' or 'es'" },
      },
      {
        type: 'string_too_long',
        loc: ['body', 'custom_sms'],
        msg: 'String should have at most 480 characters',
        input: 'x'.repeat(481),
        ctx: { max_length: 480 },
      },
      {
        type: 'bool_parsing',
        loc: ['body', 'sendEmail'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'maybe',
      },
      // `sendPhone: bool = False` given null
      { type: 'bool_type', loc: ['body', 'sendPhone'], msg: 'Input should be a valid boolean', input: null },
      {
        type: 'int_from_float',
        loc: ['body', 'count'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        input: 1.5,
      },
    ]);
  });

  it('more Pydantic body type errors', () => {
    const errors = errorsOf(createLead({ dealership: 'nope', sendEmail: 2, sendPhone: 0.5, count: '1.5' }));
    expect(errors.map((e) => [e.type, e.loc[1], e.input])).toEqual([
      ['uuid_parsing', 'dealership', 'nope'],
      ['bool_parsing', 'sendEmail', 2],
      ['bool_type', 'sendPhone', 0.5],
      ['int_parsing', 'count', '1.5'],
    ]);
  });

  it.each([[[1, 2]], ['text'], [42], [true]])('a body that is not an object (%j): model_attributes_type', (body) => {
    expect(errorsOf(createLead(body))).toEqual([
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: body,
      },
    ]);
  });

  it('no body at all: missing at ["body"], input null (FastAPI)', () => {
    expect(errorsOf(createLead(undefined))).toEqual([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
  });
});

describe('malformed JSON body (FastAPI json_invalid with Python json.JSONDecodeError)', () => {
  it.each([
    ['{"dealership": }', 15, 'Expecting value'],
    ['{"dealership" "x"}', 14, "Expecting ':' delimiter"],
    ['{dealership: 1}', 1, 'Expecting property name enclosed in double quotes'],
    ['{"a": 1,}', 8, 'Expecting property name enclosed in double quotes'],
    ['{"a": 1 "b": 2}', 8, "Expecting ',' delimiter"],
    ['[1,]', 3, 'Expecting value'],
    ['{"a": "x', 6, 'Unterminated string starting at'],
    ['{"a": "\\x"}', 7, 'Invalid \\escape'],
    ['{"a": "\\u12"}', 8, 'Invalid \\uXXXX escape'],
    ['{"a": "\t"}', 7, 'Invalid control character at'],
    ['{} x', 3, 'Extra data'],
    ['', 0, 'Expecting value'],
    ['{"é": 1, x}', 9, 'Expecting property name enclosed in double quotes'],
  ])('%j → pos %d, %s', (text, pos, reason) => {
    const expected = {
      type: 'json_invalid',
      loc: ['body', pos],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: reason },
    };
    expect(parseJsonBody(text)).toEqual({ ok: false, error: expected });
  });

  it('builds the item from a known position and reason too', () => {
    expect(jsonDecodeError(4, 'Expecting value')).toEqual({
      type: 'json_invalid',
      loc: ['body', 4],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: 'Expecting value' },
    });
  });

  it('parses what Python parses, NaN and Infinity included', () => {
    expect(parseJsonBody(' {"a": [1, 2.5e1, "\\u00e9\\ud83d\\ude00"], "b": null} ')).toEqual({
      ok: true,
      value: { a: [1, 25, 'é😀'], b: null },
    });
    const special = pythonJsonLoads('[NaN, Infinity, -Infinity]');
    expect(special.ok && special.value).toEqual([NaN, Infinity, -Infinity]);
  });
});
