/**
 * A loop that runs one batch after another until stopped, waiting `pollIntervalMs` whenever a batch
 * says nothing more is due (the outbox dispatcher and the webhook dispatcher share it). A failed
 * batch is logged and the loop goes on at the next poll: the database may be briefly away.
 */
import type { Logger } from './logger';

export class PollingLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly name: string,
    /** runs one batch; true when more work is probably due at once */
    private readonly batch: () => Promise<boolean>,
    private readonly pollIntervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.loop) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops polling and waits for the batch under way to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let moreDue = false;
      try {
        moreDue = await this.batch();
      } catch (error) {
        this.logger.error({ err: error }, `${this.name}: batch failed`);
      }
      if (this.running && !moreDue) await this.sleep(this.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
