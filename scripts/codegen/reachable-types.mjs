/**
 * A GraphQL Code Generator plugin: @graphql-codegen/typescript's output for only the types that
 * the `roots` object types reach through their fields, not for the whole schema. The report
 * document's TypeScript types (src/seed/report-document.generated.ts) come from the GraphQL
 * classes that serve it this way, without the ~100 other types of the API beside them.
 */
import { plugin as typescript } from '@graphql-codegen/typescript';
import { GraphQLSchema, getNamedType, isInputObjectType, isInterfaceType, isObjectType, isUnionType } from 'graphql';

function reachableTypes(schema, roots) {
  const found = new Map();
  const visit = (type) => {
    const named = getNamedType(type);
    if (found.has(named.name)) return;
    found.set(named.name, named);
    if (isObjectType(named) || isInterfaceType(named) || isInputObjectType(named)) {
      for (const field of Object.values(named.getFields())) visit(field.type);
    }
    if (isUnionType(named)) named.getTypes().forEach(visit);
  };
  for (const name of roots) {
    const type = schema.getType(name);
    if (!type) throw new Error(`reachable-types: no type ${name} in the schema`);
    visit(type);
  }
  return [...found.values()];
}

export const plugin = (schema, documents, config) => {
  const { roots = [], ...typescriptConfig } = config;
  const subset = new GraphQLSchema({ types: reachableTypes(schema, roots) });
  return typescript(subset, documents, typescriptConfig);
};
