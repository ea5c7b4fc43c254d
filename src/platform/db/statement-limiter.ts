/**
 * A bound on the SQL statements one request runs at once. GraphQL runs sibling fields in
 * parallel, so a single document could otherwise ask for every pooled connection and make every
 * other request wait; through this view of the client, a request's statements queue behind its
 * own, and the pool's FIFO queue interleaves requests fairly.
 */
import type { PrismaClient } from '../../generated/prisma/client';

/** Runs at most `limit` tasks at a time, the others in arrival order; may serve a request's primary and replica both. */
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

/** Runs one statement (a model call or one of the client's methods) on the client given. */
export type Invoke = (client: PrismaClient) => PromiseLike<unknown>;

type Calls = Record<PropertyKey, (...args: unknown[]) => PromiseLike<unknown>>;

/**
 * A client shaped like `shape` whose model calls and `methods` go through `execute`, which decides
 * when and on which real client each runs; its other members (`$on`, `$disconnect`…) are `shape`'s.
 * Prisma's lazy promises become eager ones, which every caller here awaits anyway.
 */
export function statementView(
  shape: PrismaClient,
  methods: ReadonlySet<string>,
  execute: (invoke: Invoke) => Promise<unknown>,
): PrismaClient {
  const views = new Map<PropertyKey, unknown>();
  return new Proxy(shape, {
    get(target, property) {
      const cached = views.get(property);
      if (cached) return cached;
      const value = Reflect.get(target, property) as unknown;
      if (typeof property !== 'string') return value;
      let view: unknown;
      if (methods.has(property) && typeof value === 'function') {
        view = (...args: unknown[]) => execute((client) => (client as unknown as Calls)[property]!(...args));
      } else if (!property.startsWith('$') && typeof value === 'object' && value !== null) {
        // A model delegate (prisma.report, prisma.user…): each of its methods is a statement.
        view = new Proxy(value, {
          get(delegate, method) {
            const member = Reflect.get(delegate, method) as unknown;
            if (typeof member !== 'function') return member;
            return (...args: unknown[]) => execute((client) => (client as unknown as Record<string, Calls>)[property]![method]!(...args));
          },
        });
      } else {
        return value;
      }
      views.set(property, view);
      return view;
    },
  });
}

/** Client methods that send SQL (an interactive transaction takes one slot as a whole). */
const RUNS_SQL = new Set(['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe', '$transaction']);

/** `prisma` seen through a semaphore: every statement takes one of its slots. */
export function limitStatements(prisma: PrismaClient, semaphore: Semaphore): PrismaClient {
  return statementView(prisma, RUNS_SQL, (invoke) => semaphore.run(() => invoke(prisma)));
}
