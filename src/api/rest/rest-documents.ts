/**
 * The GraphQL operation each REST route runs: all the field's arguments as variables, and the
 * spec's response shape as the selection (shared/schema/rest-visibility.ts). Built once from the schema.
 */
import { getNamedType, isObjectType, parse, type DocumentNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { restSelectionOf } from '../../shared/schema/rest-visibility';
import type { RestRoute } from './routes';

export function rootFieldOf(schema: GraphQLSchema, route: RestRoute): GraphQLField<unknown, unknown> {
  const [typeName, fieldName] = route.field.split('.') as [string, string];
  const root = typeName === 'Mutation' ? schema.getMutationType() : schema.getQueryType();
  const field = root?.getFields()[fieldName];
  if (!field) throw new Error(`REST route ${route.method} ${route.path} names ${route.field}, which the schema lacks`);
  return field;
}

export function restDocumentFor(schema: GraphQLSchema, route: RestRoute): DocumentNode {
  const field = rootFieldOf(schema, route);
  const operation = route.field.startsWith('Mutation.') ? 'mutation' : 'query';
  const variables = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const type = getNamedType(field.type);
  const selection = isObjectType(type) ? ` { ${restSelectionOf(type)} }` : '';
  return parse(
    `${operation} rest_${field.name}${variables ? `(${variables})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`,
  );
}
