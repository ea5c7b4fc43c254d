/**
 * A client's error carries no stack (src/shared/errors.ts): graphql-js formats the stack of every
 * error it wraps, and a missing report selected 20 times is 20 of them. A bug keeps its stack.
 */
import { AppError, internalError, invalidInput, notFound } from '../../src/shared/errors';

const frames = (error: Error) => (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).length;

describe('AppError stacks', () => {
  it('records no frames for client errors, keeps them for INTERNAL, and leaves Error.stackTraceLimit as it was', () => {
    const limit = Error.stackTraceLimit;
    expect(frames(notFound('Report not found'))).toBe(0);
    expect(frames(invalidInput([{ type: 'missing', loc: ['x'], msg: 'Field required', input: null }]))).toBe(0);
    expect(frames(new AppError('RATE_LIMITED', 'Rate limit exceeded'))).toBe(0);
    expect(frames(internalError())).toBeGreaterThan(0);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(frames(new Error('an ordinary error'))).toBeGreaterThan(0);
  });
});
