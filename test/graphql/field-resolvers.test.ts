/**
 * A field with no resolver of its own is read by graphql-js's default resolver, not wrapped in
 * type-graphql's per-field resolver (which builds an object and walks an empty middleware list for
 * every field of every row: the full report document alone selects ~400 fields). Object types say
 * so with `simpleResolvers: true`; this keeps a new type from forgetting it. A field that needs a
 * resolver says so (`simple: false`: a page's total, which may be a count under way). The one
 * exception is answer-size.ts's counter on lists, JSON values and the report's stored documents
 * (a call per list, value or document, not per field of a row): what bounds an answer while it is
 * built. The fields inside the documents have none at all.
 */
import { getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { isAnswerCounter } from '../../src/api/graphql/answer-size';
import { buildAppSchema } from '../../src/api/graphql/schema';

describe('field resolvers', () => {
  it('exist only where a resolver class declares one (query, mutation, subscription, @FieldResolver)', async () => {
    const schema = await buildAppSchema();
    const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name, schema.getSubscriptionType()?.name]);
    const wrapped: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__') || roots.has(type.name)) continue;
      for (const field of Object.values(type.getFields()))
        if (field.resolve && !isAnswerCounter(field.resolve)) wrapped.push(`${type.name}.${field.name}`);
    }
    const storage = getMetadataStorage();
    const declared = new Set(storage.fieldResolvers.map((resolver) => `${resolver.getObjectType!().name}.${resolver.schemaName}`));
    // Fields that ask for a resolver (`simple: false`), on every type that inherits them.
    const notSimple = new Set(storage.fields.filter((field) => field.simple === false).map((field) => field.schemaName));
    expect(wrapped.filter((name) => !declared.has(name) && !notSimple.has(name.split('.')[1]!))).toEqual([]);
    expect(wrapped.length).toBeGreaterThan(0);

    // The full report's documents, the bulk of a fetch-one, have none at all.
    const documentTypes = new Set<GraphQLObjectType>();
    const visit = (type: unknown) => {
      const named = getNamedType(type as never);
      if (!isObjectType(named) || documentTypes.has(named)) return;
      documentTypes.add(named);
      for (const field of Object.values(named.getFields())) visit(field.type);
    };
    const report = schema.getType('Report') as GraphQLObjectType;
    for (const name of ['data', 'state', 'real_costs']) visit(report.getFields()[name]!.type);
    expect(documentTypes.size).toBeGreaterThan(20);
    const documentFields = [...documentTypes].flatMap((type) => Object.values(type.getFields()).map((field) => ({ type, field })));
    expect(
      documentFields
        .filter(({ field }) => field.resolve && !isAnswerCounter(field.resolve))
        .map(({ type, field }) => `${type.name}.${field.name}`),
    ).toEqual([]);
  });
});
