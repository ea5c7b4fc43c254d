/**
 * Turns on the event loop for long synchronous work: one holder at a time, and the next one starts
 * in a later iteration of the loop than the previous one ended, so that what became ready
 * meanwhile (another tenant's I/O, timers, immediates) is handled in between. Parsing and
 * validating a large GraphQL document are synchronous: four such requests of one tenant would run
 * back to back, another tenant's request waiting behind all four (bench:abuse scenario 10).
 */
export class EventLoopTurns {
  private readonly waiting: ((done: () => void) => void)[] = [];
  private held = false;

  /** A holder that never says it is done frees its turn after this long (an end hook that did not run). */
  constructor(private readonly maxTurnMs = 1_000) {}

  /** Resolves when it is this caller's turn, with the function that ends it. */
  take(): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.held) {
        this.held = true;
        setImmediate(this.startNext);
      }
    });
  }

  private readonly startNext = (): void => {
    const next = this.waiting.shift();
    if (!next) {
      this.held = false;
      return;
    }
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(expiry);
      setImmediate(this.startNext);
    };
    const expiry = setTimeout(end, this.maxTurnMs).unref();
    next(end);
  };
}
