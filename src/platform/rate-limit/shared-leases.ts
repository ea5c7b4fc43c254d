/**
 * Leases counted across instances in Redis: at most `limit` held at once per key, whichever
 * instance holds them. Each lease is a member of a sorted set scored by when it expires; its
 * instance renews it while held (every third of its length), so the leases of an instance that
 * died lapse on their own. Used where a per-instance count would let N instances hold N times
 * the limit (open subscriptions per organization).
 */
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

/** Takes a lease when fewer than ARGV[1] unexpired ones are held: 1 taken, 0 refused. */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export class SharedLeases {
  /** leases this instance holds: member → key */
  private readonly held = new Map<string, string>();
  private readonly instance = randomUUID();
  private counter = 0;
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly settings: { prefix: string; leaseMs: number },
  ) {
    this.renewal = setInterval(() => void this.renew(), Math.max(100, Math.floor(settings.leaseMs / 3))).unref();
  }

  /**
   * A lease of `key` (its release function), undefined when `limit` are held, or 'unavailable'
   * when Redis cannot be asked (the caller then counts on its own).
   */
  async take(key: string, limit: number): Promise<(() => void) | undefined | 'unavailable'> {
    if (this.redis.status !== 'ready') return 'unavailable';
    const member = `${this.instance}:${(this.counter += 1)}`;
    const now = Date.now();
    const { leaseMs } = this.settings;
    const taken = await this.redis
      .eval(TAKE, 1, this.redisKey(key), limit, now, now + leaseMs, member, leaseMs * 2)
      .catch(() => 'unavailable');
    if (taken !== 1) return taken === 'unavailable' ? taken : undefined;
    this.held.set(member, key);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held.delete(member);
      this.redis.zrem(this.redisKey(key), member).catch(() => undefined);
    };
  }

  /** Stops renewing (the leases lapse, or were released). */
  close(): void {
    clearInterval(this.renewal);
  }

  private redisKey(key: string): string {
    return `${this.settings.prefix}:${key}`;
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0 || this.redis.status !== 'ready') return;
    const expires = Date.now() + this.settings.leaseMs;
    const pipeline = this.redis.pipeline();
    for (const [member, key] of this.held) pipeline.zadd(this.redisKey(key), 'XX', expires, member);
    await pipeline.exec().catch(() => undefined);
  }
}
