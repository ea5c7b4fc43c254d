/**
 * Which errors mean "the database is not there right now" (platform/db/failures.ts), for the
 * error shapes the nemeses met that the outage suites (test/server/database-outage.test.ts) do
 * not produce: a statement of an interactive transaction whose connection PgBouncer closed as it
 * restarted reaches the API as the adapter's own DriverAdapterError (its payload as `cause`),
 * wrapped by GraphQL; that is a 503 to retry, not a bug's 500 (issue 45, pgbouncer-restart).
 */
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import { GraphQLError } from 'graphql';
import { databaseFailureOf } from '../../src/platform/db/failures';
import { asAppError } from '../../src/shared/errors';

describe('database failures', () => {
  it.each(['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout', 'TooManyConnections'] as const)(
    "a transaction's statement failing with the adapter's %s is an outage: 503 with Retry-After",
    (kind) => {
      const error = new GraphQLError(kind, {
        originalError: new DriverAdapterError({ kind } as ConstructorParameters<typeof DriverAdapterError>[0]),
      });
      expect(databaseFailureOf(error)).toMatchObject({ kind: 'unavailable' });
      const answer = asAppError(error);
      expect(answer?.status).toBe(503);
      expect(answer?.details.retryAfterSeconds).toBeGreaterThan(0);
    },
  );

  it("the adapter's PostgreSQL errors are classified by their SQLSTATE: an admin shutdown is an outage, a unique violation is not", () => {
    const shutdown = new DriverAdapterError({
      kind: 'postgres',
      code: '57P01',
      severity: 'FATAL',
      message: 'terminating connection',
      detail: undefined,
      column: undefined,
      hint: undefined,
      originalCode: '57P01',
      originalMessage: 'terminating connection',
    });
    expect(databaseFailureOf(shutdown)).toMatchObject({ kind: 'unavailable' });
    const unique = new DriverAdapterError({ kind: 'UniqueConstraintViolation', constraint: { fields: ['token'] } });
    expect(databaseFailureOf(unique)).toBeUndefined();
  });
});
