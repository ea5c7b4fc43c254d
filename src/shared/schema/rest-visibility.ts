/**
 * Which fields the REST interface shows. REST bodies are the spec's shapes: every field of a type
 * except GraphQL-only relations, whatever sofa's default depth would select. A field marks itself
 * with type-graphql's `@Extensions`, so a new plain field appears in REST with no REST change.
 */
import { getNamedType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';

interface RestExtension {
  /** false: GraphQL only; a string: the selection REST uses for this field */
  rest?: false | string;
}

export const GRAPHQL_ONLY: RestExtension = { rest: false };
export const restSelection = (selection: string): RestExtension => ({ rest: selection });

/** The selection set (without braces) of every REST-visible field of `type`, recursively. */
export function restSelectionOf(type: GraphQLObjectType, depth = 0): string {
  if (depth > 12) throw new Error(`REST selection of ${type.name} is too deep: is a relation missing GRAPHQL_ONLY?`);
  return Object.values(type.getFields())
    .map((field: GraphQLField<unknown, unknown>) => {
      const rest = (field.extensions as RestExtension).rest;
      if (rest === false) return '';
      if (typeof rest === 'string') return `${field.name} { ${rest} }`;
      const named = getNamedType(field.type);
      return isObjectType(named) ? `${field.name} { ${restSelectionOf(named, depth + 1)} }` : field.name;
    })
    .filter(Boolean)
    .join(' ');
}
