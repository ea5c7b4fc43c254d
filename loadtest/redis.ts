/**
 * The shared Redis of the rate limits. The limiter has no configurable key prefix, so the load test
 * uses a database number of its own (redis://127.0.0.1:6379/5 by default) and, at the end, deletes
 * the keys of its own API keys only: other people's data in the same Redis is never touched.
 */
import Redis from 'ioredis';

export async function redisReachable(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** rate-limiter-flexible stores `<keyPrefix>:<key>`; the limiter's key is the API key id. */
export async function deleteRateLimitKeys(url: string, apiKeyIds: string[]): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    const keys = apiKeyIds.flatMap((id) => [`vr-rl-requests:${id}`, `vr-rl-leads:${id}`]);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
