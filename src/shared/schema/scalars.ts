/** The scalars of the schema, from graphql-scalars: one definition each, shared by every type. */
export { DateTimeISOResolver as DateTimeISO, JSONResolver as JSON, UUIDResolver as UUID } from 'graphql-scalars';
