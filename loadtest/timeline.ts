/** What happened when during the run (faults, restarts, health changes), in seconds since the traffic started. */
export interface TimelineEvent {
  /** seconds since the start of the traffic (negative: before it) */
  at: number;
  event: string;
}

export class Timeline {
  private origin = performance.now();
  /** wall-clock time of the origin, ms since the epoch */
  originEpochMs = Date.now();
  readonly events: TimelineEvent[] = [];

  /** Traffic starts now: later events are timed from here. */
  start(): void {
    const shift = (performance.now() - this.origin) / 1000;
    for (const e of this.events) e.at = Math.round((e.at - shift) * 100) / 100;
    this.origin = performance.now();
    this.originEpochMs = Date.now();
  }

  /** Seconds since the traffic started. */
  now(): number {
    return (performance.now() - this.origin) / 1000;
  }

  mark(event: string): void {
    const at = Math.round(this.now() * 100) / 100;
    this.events.push({ at, event });
    process.stderr.write(`  [${at.toFixed(1).padStart(6)} s] ${event}\n`);
  }
}
