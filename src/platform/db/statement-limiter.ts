/**
 * A bound on the SQL statements one request runs at once. GraphQL runs sibling fields in
 * parallel, so a single document could otherwise ask for every pooled connection and make every
 * other request wait; through this view of the client, a request's statements queue behind its
 * own, and the pool's FIFO queue interleaves requests fairly.
 */
import type { PrismaClient } from '../../generated/prisma/client';

/**
 * Runs at most `limit` tasks at a time, the others in arrival order (a dozen lines: no library
 * needed). One may be shared by several clients (a request's primary and replica).
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => PromiseLike<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

/** Client methods that send SQL; the others (`$on`, `$disconnect`, `$extends`…) pass through. */
const RUNS_SQL = new Set(['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe', '$transaction']);

/**
 * `prisma` seen through a semaphore: every statement (model calls, raw SQL, and an interactive
 * transaction as a whole) takes one of `limit` slots. Prisma's lazy promises become eager ones,
 * which every caller here awaits anyway.
 */
export function limitStatements(prisma: PrismaClient, limit: number | Semaphore): PrismaClient {
  const semaphore = typeof limit === 'number' ? new Semaphore(limit) : limit;
  const wrapped = new Map<PropertyKey, unknown>();
  const throughSemaphore =
    (target: object, method: (...args: unknown[]) => PromiseLike<unknown>) =>
    (...args: unknown[]) =>
      semaphore.run(() => method.apply(target, args));
  return new Proxy(prisma, {
    get(target, property, receiver) {
      const cached = wrapped.get(property);
      if (cached) return cached;
      const value = Reflect.get(target, property, receiver) as unknown;
      let view: unknown = value;
      if (typeof property === 'string' && RUNS_SQL.has(property) && typeof value === 'function') {
        view = throughSemaphore(target, value as (...args: unknown[]) => PromiseLike<unknown>);
      } else if (typeof property === 'string' && !property.startsWith('$') && typeof value === 'object' && value !== null) {
        // A model delegate (prisma.report, prisma.user…): each of its methods runs SQL.
        view = new Proxy(value, {
          get(delegate, method, delegateReceiver) {
            const member = Reflect.get(delegate, method, delegateReceiver) as unknown;
            return typeof member === 'function'
              ? throughSemaphore(delegate, member as (...args: unknown[]) => PromiseLike<unknown>)
              : member;
          },
        });
      } else {
        return value;
      }
      wrapped.set(property, view);
      return view;
    },
  });
}
