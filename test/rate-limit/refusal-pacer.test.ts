/**
 * The pacer's rules with a clock and randomness the test holds (platform/rate-limit/refusal-pacer.ts):
 * one payer's answers at least `spacingMs` apart, holds spread over 75–125 %, never past the
 * longest hold, payers independent, and what it remembers bounded.
 */
import { RefusalPacer } from '../../src/platform/rate-limit/refusal-pacer';

function pacerAt(settings: { spacingMs: number; maxHoldMs: number; maxPayers?: number }, random = () => 0) {
  const clock = { now: 1_000 };
  const pacer = new RefusalPacer(settings, random, () => clock.now);
  return { pacer, clock };
}

describe('RefusalPacer', () => {
  it('answers a payer’s refusals that arrive together one spacing apart', () => {
    const { pacer } = pacerAt({ spacingMs: 500, maxHoldMs: 16_000 });
    const holds = Array.from({ length: 10 }, () => pacer.holdMs('203.0.113.1', 500));
    expect(holds).toEqual([500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000]);
  });

  it('keeps payers apart: another address is not behind the first one’s line', () => {
    const { pacer } = pacerAt({ spacingMs: 500, maxHoldMs: 16_000 });
    for (let i = 0; i < 20; i++) pacer.holdMs('203.0.113.1', 500);
    expect(pacer.holdMs('203.0.113.2', 500)).toBe(500);
  });

  it('spreads one hold over 100–150 % of its length, never past the longest hold', () => {
    const low = pacerAt({ spacingMs: 0, maxHoldMs: 16_000 }, () => 0).pacer;
    const high = pacerAt({ spacingMs: 0, maxHoldMs: 16_000 }, () => 0.999_999).pacer;
    expect(low.holdMs('a', 1_000)).toBe(1_000);
    expect(high.holdMs('a', 1_000)).toBeCloseTo(1_500, 1);
    expect(high.holdMs('b', 15_000)).toBe(16_000);
  });

  it('never holds past the longest hold, however many connections one payer has', () => {
    const { pacer } = pacerAt({ spacingMs: 500, maxHoldMs: 4_000 }, Math.random);
    const holds = Array.from({ length: 100 }, () => pacer.holdMs('203.0.113.1', 500));
    expect(Math.max(...holds)).toBeLessThanOrEqual(4_000);
    // The ones past what spacing can serve wait between 75 % and all of the longest hold.
    expect(Math.min(...holds.slice(20))).toBeGreaterThanOrEqual(3_000);
  });

  it('frees a payer’s line as time passes', () => {
    const { pacer, clock } = pacerAt({ spacingMs: 500, maxHoldMs: 16_000 });
    for (let i = 0; i < 4; i++) pacer.holdMs('a', 500);
    clock.now += 10_000;
    expect(pacer.holdMs('a', 500)).toBe(500);
  });

  it('remembers at most maxPayers payers', () => {
    const { pacer, clock } = pacerAt({ spacingMs: 500, maxHoldMs: 16_000, maxPayers: 100 });
    for (let i = 0; i < 1_000; i++) {
      pacer.holdMs(`198.51.100.${i}`, 500);
      clock.now += 1;
    }
    expect(pacer.size).toBeLessThanOrEqual(100);
  });
});
