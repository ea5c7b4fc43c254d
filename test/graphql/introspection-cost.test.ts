/**
 * Introspection is priced by the size of its answer, counted on the schema without running it
 * (src/api/graphql/introspection-cost.ts). The oracle is graphql-js itself: each document is
 * executed and the values of its answer counted; the price must be exactly that count. Documents
 * come from graphql-js's own introspection query, hand-written shapes (aliases, fragments, __type,
 * __typename) and a generator over the introspection types.
 */
import 'reflect-metadata';
import fc from 'fast-check';
import {
  execute,
  getIntrospectionQuery,
  getNamedType,
  isObjectType,
  parse,
  validate,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { operationCost } from '../../src/api/graphql/operation-cost';

/** Values in a JSON answer: each object, list, and leaf (null included) counts one. */
function valuesIn(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((sum: number, item) => sum + valuesIn(item), 0);
  if (value !== null && typeof value === 'object') return 1 + Object.values(value).reduce((sum: number, item) => sum + valuesIn(item), 0);
  return 1;
}

async function answerAndPrice(schema: GraphQLSchema, text: string) {
  const document = parse(text);
  expect(validate(schema, document)).toEqual([]);
  const result = await execute({ schema, document, contextValue: {} });
  expect(result.errors).toBeUndefined();
  const answerValues = Object.values(result.data!).reduce((sum: number, value) => sum + valuesIn(value), 0);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
  const price = operationCost(schema, document, operation, {})!;
  return { answerValues, price };
}

describe('the price of an introspection answer', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildAppSchema();
  });

  const documents: [string, string][] = [
    ['graphql-js introspection query', getIntrospectionQuery()],
    [
      'every option of it',
      getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      }),
    ],
    ['a name', '{ __schema { queryType { name } } }'],
    [
      'aliased lists through fragments',
      '{ __schema { a: types { ...T } b: types { ...T } } } fragment T on __Type { f: fields { ...F } g: fields { name } } fragment F on __Field { n: name m: name type { name ofType { name ofType { kind } } } }',
    ],
    ['__type by name', '{ a: __type(name: "Report") { name fields { name args { name } } } b: __type(name: "NoSuchType") { name } }'],
    ['__typename inside', '{ __typename __schema { __typename types { __typename name ... on __Type { kind } } } }'],
    [
      'directives with their locations and arguments',
      '{ __schema { directives { name locations args { name type { kind name } defaultValue } } } }',
    ],
    [
      'null lists on types that lack them',
      '{ __schema { types { name fields { name } inputFields { name } enumValues { name } possibleTypes { name } interfaces { name } } } }',
    ],
  ];

  it.each(documents)('%s: exactly its values', async (_name, text) => {
    const { answerValues, price } = await answerAndPrice(schema, text);
    expect(price.cost).toBe(answerValues);
  });

  it('a response name selected twice is counted twice: a bound, never less than the answer', async () => {
    const { answerValues, price } = await answerAndPrice(schema, '{ __schema { types { name } types { kind } } }');
    expect(price.introspection).toBeGreaterThan(answerValues);
  });

  it('generated selections over the introspection types: price = answer, 200 documents', async () => {
    const leafNames = (type: GraphQLObjectType) =>
      Object.values(type.getFields())
        .filter((f) => !isObjectType(getNamedType(f.type)))
        .map((f) => f.name);
    const selectionOf = (typeName: string, depth: number): fc.Arbitrary<string> => {
      const type = schema.getType(typeName) as GraphQLObjectType;
      const objectFields = Object.values(type.getFields()).filter((f) => isObjectType(getNamedType(f.type)));
      const leaf = fc.constantFrom(...leafNames(type));
      const branches =
        depth <= 0
          ? []
          : objectFields.map((f) => selectionOf(getNamedType(f.type).name, depth - 1).map((inner) => `${f.name} { ${inner} }`));
      const field = fc.oneof(leaf, ...branches);
      return (
        fc
          .array(fc.tuple(fc.option(fc.constantFrom('x', 'y', 'z'), { nil: undefined }), field), { minLength: 1, maxLength: 4 })
          // Distinct response names: graphql-js merges a name selected twice, the price counts it twice.
          .map((fields) => fields.map(([alias, text], i) => (alias || i > 0 ? `${alias ?? 'r'}${i}: ${text}` : text)).join(' '))
      );
    };
    await fc.assert(
      fc.asyncProperty(selectionOf('__Schema', 4), async (inner) => {
        const text = `{ __schema { ${inner} } }`;
        const document = parse(text);
        // Generated selections may merge the same response name with different fields: graphql-js refuses those.
        if (validate(schema, document).length > 0) return;
        const { answerValues, price } = await answerAndPrice(schema, text);
        expect(price.cost).toBe(answerValues);
      }),
      { numRuns: 200, seed: 22 },
    );
  });
});
