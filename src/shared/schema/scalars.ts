/**
 * The scalars of the schema, from graphql-scalars: one definition each, shared by every type.
 * UUID and DateTimeISO keep graphql-scalars' parsing (what clients send is checked as before) but
 * serialize the database's own values without re-validating them: a page of 100 reports holds
 * about 700 of them, and the per-value regular expression was measured at 0.2 ms of CPU per page.
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { parseDateTimeLikePydantic } from '../datetime';
import { DateTimeISOResolver, JSONResolver, UUIDResolver } from 'graphql-scalars';

export const UUID = new GraphQLScalarType({
  ...UUIDResolver.toConfig(),
  // PostgreSQL's uuid columns come back as canonical strings.
  serialize: (value) => (typeof value === 'string' ? value : UUIDResolver.serialize(value)),
});

/**
 * Date-times in arguments are read as the REST interface reads them (Pydantic's lax datetime:
 * `2025-01-01` is midnight UTC, `2025-01-01 10:00`, a unix timestamp...), so one value means the
 * same thing on both interfaces.
 */
export const DateTimeISO = new GraphQLScalarType({
  ...DateTimeISOResolver.toConfig(),
  serialize: (value) =>
    value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : DateTimeISOResolver.serialize(value),
  parseValue: (value) => parseDateTime(value),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING)
      throw new GraphQLError(`DateTimeISO takes a string, got a ${ast.kind.toLowerCase()} value`, { nodes: ast });
    return parseDateTime(ast.value);
  },
});

function parseDateTime(value: unknown): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  if (typeof value !== 'string') throw new GraphQLError(`DateTimeISO takes a string, got ${JSON.stringify(value) ?? typeof value}`);
  const parsed = parseDateTimeLikePydantic(value);
  if (!parsed.ok) throw new GraphQLError(`Input should be a valid datetime, ${parsed.reason}`);
  return parsed.value;
}

export { JSONResolver as JSON };
