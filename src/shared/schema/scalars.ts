/**
 * The scalars of the schema, from graphql-scalars: one definition each, shared by every type.
 * UUID and DateTimeISO keep graphql-scalars' parsing (what clients send is checked as before) but
 * serialize the database's own values without re-validating them: a page of 100 reports holds
 * about 700 of them, and the per-value regular expression was measured at 0.2 ms of CPU per page.
 */
import { GraphQLScalarType } from 'graphql';
import { DateTimeISOResolver, JSONResolver, UUIDResolver } from 'graphql-scalars';

export const UUID = new GraphQLScalarType({
  ...UUIDResolver.toConfig(),
  // PostgreSQL's uuid columns come back as canonical strings.
  serialize: (value) => (typeof value === 'string' ? value : UUIDResolver.serialize(value)),
});

export const DateTimeISO = new GraphQLScalarType({
  ...DateTimeISOResolver.toConfig(),
  serialize: (value) => (value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : DateTimeISOResolver.serialize(value)),
});

export { JSONResolver as JSON };
