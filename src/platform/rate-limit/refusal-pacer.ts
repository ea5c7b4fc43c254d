/**
 * When each held refusal is answered. A refusal that repeats (a wrong key, a spent budget) is held
 * before it is sent, so that a client ignoring Retry-After costs one answer per hold and
 * connection. But the holds of connections that arrive together end together, and their answers
 * would be written in one turn of the event loop, another tenant's request waiting behind them
 * (bench:abuse scenario 12). The pacer spaces one payer's answers (a client address, an
 * organization: at most one per `spacingMs`) and spreads every hold over 100–150 % of its length
 * (never shorter than asked, never longer than the longest hold). A payer with more connections
 * than its longest hold can space gets one answer per connection per longest hold.
 */
export class RefusalPacer {
  /** by payer: the earliest moment its next refusal may be answered (performance.now() ms) */
  private readonly nextFree = new Map<string, number>();

  constructor(
    private readonly settings: { spacingMs: number; maxHoldMs: number; maxPayers?: number },
    private readonly random: () => number = Math.random,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The milliseconds to hold this refusal of `payer`, whose hold alone would be `holdMs`. */
  holdMs(payer: string, holdMs: number): number {
    const { spacingMs, maxHoldMs } = this.settings;
    const now = this.now();
    const spread = Math.min(holdMs * (1 + 0.5 * this.random()), maxHoldMs);
    let at = Math.max(now + spread, this.nextFree.get(payer) ?? 0);
    // Past the longest hold the payer has more connections than spacing can serve: each waits the longest hold, spread.
    if (at > now + maxHoldMs) at = now + maxHoldMs * (0.75 + 0.25 * this.random());
    this.remember(payer, Math.min(Math.max(at, this.nextFree.get(payer) ?? 0), now + maxHoldMs) + spacingMs, now);
    return at - now;
  }

  private remember(payer: string, nextFree: number, now: number): void {
    const maxPayers = this.settings.maxPayers ?? 10_000;
    if (this.nextFree.size >= maxPayers && !this.nextFree.has(payer)) {
      for (const [key, free] of this.nextFree) if (free <= now) this.nextFree.delete(key);
      // Every payer still waiting (an attack from more addresses than this): forget them; holds stay bounded.
      if (this.nextFree.size >= maxPayers) this.nextFree.clear();
    }
    this.nextFree.set(payer, nextFree);
  }

  /** Payers remembered now (tests, metrics). */
  get size(): number {
    return this.nextFree.size;
  }
}
