/**
 * A root field's JSON written by PostgreSQL (api/answer-plan/raw-json.ts) is written as it is, and
 * handed over to its one writer: the value keeps no answer once it is written, so that a result
 * kept after its answer went out (Apollo Server keeps each operation's until V8's next full
 * collection) keeps none of it either.
 */
import { RawJson, stringifyResult } from '../../src/api/answer-plan/raw-json';

describe('a written answer', () => {
  it('is written as it stands, beside the rest of the result as JSON.stringify writes it', () => {
    const report = new RawJson('{"token":"t","name":"Léa ’"}', { version: '7' });
    const error = { message: 'm', path: ['other'] };
    expect(stringifyResult({ data: { report, other: null, gone: undefined }, errors: [error] })).toBe(
      `{"data":{"report":{"token":"t","name":"Léa ’"},"other":null},"errors":[${JSON.stringify(error)}]}\n`,
    );
    expect(report.meta).toEqual({ version: '7' });
  });

  it('is handed to its writer once: the value keeps no text after it, and a second writer is refused', () => {
    const page = new RawJson('{"items":[]}');
    expect(stringifyResult({ data: { page } })).toBe('{"data":{"page":{"items":[]}}}\n');
    expect(() => page.take()).toThrow('a written answer was taken twice');
    expect(() => stringifyResult({ data: { page } })).toThrow('a written answer was taken twice');
    // A serializer that does not know it (sofa's) writes null, never the text.
    expect(JSON.stringify({ page: new RawJson('{"x":1}') })).toBe('{"page":null}');
  });
});
