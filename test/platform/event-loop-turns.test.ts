/**
 * Turns on the event loop (platform/event-loop-turns.ts): one holder at a time, the next starting
 * in a later iteration than the previous one ended, with what became ready meanwhile handled in between.
 */
import { EventLoopTurns } from '../../src/platform/event-loop-turns';

describe('EventLoopTurns', () => {
  it('starts one holder per iteration of the loop, with other callbacks in between', async () => {
    const turns = new EventLoopTurns();
    const order: string[] = [];
    await Promise.all(
      [1, 2, 3].map((i) =>
        turns.take().then((end) => {
          order.push(`turn ${i}`);
          // Work that became ready while holder i ran: it runs before the next holder starts.
          setImmediate(() => order.push(`after ${i}`));
          end();
        }),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['turn 1', 'after 1', 'turn 2', 'after 2', 'turn 3', 'after 3']);
  });

  it('takes turns in the order asked, and starts again after the line is empty', async () => {
    const turns = new EventLoopTurns();
    const order: number[] = [];
    const inOrder = (i: number) => (end: () => void) => {
      order.push(i);
      end();
    };
    await Promise.all([1, 2].map((i) => turns.take().then(inOrder(i))));
    (await turns.take())();
    await Promise.all([3, 4].map((i) => turns.take().then(inOrder(i))));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('frees a turn its holder never ended, after maxTurnMs', async () => {
    const turns = new EventLoopTurns(50);
    await turns.take(); // never ended
    const started = performance.now();
    (await turns.take())();
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('one holder at a time: the next does not start while one holds its turn', async () => {
    const turns = new EventLoopTurns();
    const end = await turns.take();
    let second = false;
    const next = turns.take().then((done) => {
      second = true;
      done();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second).toBe(false);
    end();
    await next;
    expect(second).toBe(true);
  });
});
