/**
 * Delay before the next attempt after `failedAttempts` failures: exponential from `baseMs`, capped
 * at `maxMs`, with "equal jitter" (between half and all of it) so that rows failing together
 * (a provider outage) do not all come back in the same instant.
 */
export function retryDelayMs(
  failedAttempts: number,
  options: { baseMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const exponential = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
