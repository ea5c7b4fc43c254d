/**
 * E-mail addresses as real Pydantic judges them, without Python: parity/email_oracle.py asked
 * `TypeAdapter(EmailStr)` (Pydantic 2.13, email-validator 2.3) about a few thousand strings (edge
 * classes and seeded mutations) and recorded its answers in email-answers.json (`npm run
 * parity:email` regenerates it). Each is replayed here through the rule the create-lead `email`
 * argument runs on both interfaces: the normalized address for an accepted one, Pydantic's whole
 * error item for a refused one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkFieldRules } from '../../src/api/contract/argument-rules';

interface OracleAnswer {
  input: string;
  /** present when EmailStr accepted the input: the value it returns */
  normalized?: string;
  /** present when it refused it: the msg of its single value_error */
  msg?: string;
}

const PREFIX = 'value is not a valid email address: ';
const fixture = JSON.parse(readFileSync(path.join(__dirname, 'email-answers.json'), 'utf8')) as { about: string; answers: OracleAnswer[] };

describe("EmailStr's recorded answers (test/parity/email-answers.json)", () => {
  const { answers } = fixture;

  it('cover thousands of strings, accepted and refused, for every reason class', () => {
    expect(answers.length).toBeGreaterThan(3000);
    expect(answers.filter((a) => a.normalized !== undefined).length).toBeGreaterThan(1000);
    const reasons = new Set(answers.filter((a) => a.msg).map((a) => a.msg!.slice(PREFIX.length).replace(/:.*|\(.*/s, '')));
    expect(reasons.size).toBeGreaterThan(40);
    expect(answers.some((a) => a.msg?.includes("After Unicode normalization"))).toBe(true);
  });

  it('are given by the port, answer for answer', () => {
    const mismatches: string[] = [];
    for (const answer of answers) {
      const got = checkFieldRules([{ kind: 'email' }], answer.input);
      const expected =
        answer.normalized !== undefined
          ? { ok: true, value: answer.normalized }
          : {
              ok: false,
              error: { type: 'value_error', msg: answer.msg, input: answer.input, ctx: { reason: answer.msg!.slice(PREFIX.length) } },
            };
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        mismatches.push(`${JSON.stringify(answer.input).slice(0, 120)}: ${JSON.stringify(got).slice(0, 300)}`);
      }
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(mismatches.length).toBe(0);
  });
});
