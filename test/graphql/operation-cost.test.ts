/**
 * Our pricing walk (src/api/graphql/operation-cost.ts) against graphql-query-complexity, whose
 * rules it keeps but whose walk expanded every fragment spread again: the library with the same
 * estimators is the oracle, on generated documents (fields, aliases, arguments, variables,
 * fragments, @skip/@include) and on hand-written ones (fragments spread many times, introspection).
 */
import 'reflect-metadata';
import fc from 'fast-check';
import { getIntrospectionQuery, parse, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { introspectionAnswerSize } from '../../src/api/graphql/introspection-cost';
import { operationCost } from '../../src/api/graphql/operation-cost';
import { MAX_EXPANDED_FIELDS } from '../../src/api/graphql/selection-shape-rule';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { buildDemoDataset } from '../../src/seed/dataset';
import { DEFAULT_PAGE_SIZE } from '../../src/shared/pagination';
import { statementsOf } from '../../src/shared/schema/statements';
import type { FuzzContext } from '../fuzz/fuzz-context';
import { generatedQuery } from './generated-queries';

const DOCUMENTS = Number(process.env.GENERATED_QUERIES ?? 1_000);
const SEED = Number(process.env.FUZZ_SEED ?? 42);

/** The pricing as it was, on the library: the oracle. */
function libraryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
) {
  const items: ComplexityEstimator = ({ args, childComplexity, field }) => {
    if (!field.args.some((a) => a.name === 'limit')) return undefined;
    const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_PAGE_SIZE;
    return 1 + Math.max(limit, 1) * Math.max(childComplexity, 1);
  };
  const counted = { values: 0 };
  const introspection: ComplexityEstimator = ({ field, node, args }) => {
    let values: number;
    if (field.name === '__schema') values = introspectionAnswerSize(schema, document, node.selectionSet, { schema: true });
    else if (field.name === '__type')
      values = introspectionAnswerSize(schema, document, node.selectionSet, { typeName: String(args.name) });
    else return undefined;
    counted.values += values;
    return values;
  };
  const statements: ComplexityEstimator = ({ field, childComplexity }) => statementsOf(field) + childComplexity;
  const options = { schema, query: document, operationName: operation.name?.value, variables, maxQueryNodes: 2 * MAX_EXPANDED_FIELDS };
  try {
    return {
      cost: getComplexity({ ...options, estimators: [introspection, items, simpleEstimator({ defaultComplexity: 1 })] }),
      statements: getComplexity({ ...options, estimators: [statements] }),
      introspection: counted.values,
    };
  } catch {
    return undefined;
  }
}

describe('operation cost', () => {
  let schema: GraphQLSchema;
  let context: FuzzContext;

  beforeAll(async () => {
    schema = await buildAppSchema();
    const dataset = buildDemoDataset({ reports: 40 });
    context = {
      schema,
      keys: { own: '', other: '', revoked: '' },
      ids: {
        organization: dataset.organizations.map((o) => o.id),
        entity: dataset.entities.map((e) => e.id),
        dealership: dataset.dealerships.map((d) => d.id),
        user: dataset.users.map((u) => u.id),
        report: dataset.reports.map((r) => r.token),
      },
      texts: dataset.dealerships.map((d) => d.name),
    };
  });

  const compare = (text: string, variables: Record<string, unknown> = {}) => {
    const document = parse(text);
    if (validate(schema, document).length > 0) return false;
    const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
    const ours = operationCost(schema, document, operation, variables);
    const library = libraryCost(schema, document, operation, variables);
    expect({ text, variables, price: ours && { cost: ours.cost, statements: ours.statements, introspection: ours.introspection } }).toEqual(
      {
        text,
        variables,
        price: library,
      },
    );
    return true;
  };

  it(`prices ${DOCUMENTS} generated documents as graphql-query-complexity does (FUZZ_SEED=${SEED})`, () => {
    const samples = fc.sample(generatedQuery(context), { seed: SEED, numRuns: DOCUMENTS });
    let valid = 0;
    for (const { query, variables } of samples) if (compare(query, variables)) valid += 1;
    // Most generated documents are valid: the comparison is not vacuous.
    expect(valid).toBeGreaterThan(DOCUMENTS / 2);
  });

  it('prices fragments spread many times, conditions and introspection as the library does', () => {
    const fields = 'token type valid data { vehicle { vin damages engine { original } } }';
    const spreads = (n: number) => Array.from({ length: n }, (_, i) => `r${i}: report(report_id: $id) { ...R }`).join(' ');
    const id = context.ids.report[0];
    expect(compare(`query($id: UUID!) { ${spreads(20)} } fragment R on Report { ${fields} }`, { id })).toBe(true);
    expect(
      compare(
        `query($id: UUID!, $s: Boolean!) { ${spreads(3)} } fragment R on Report { token @skip(if: $s) ...D } fragment D on Report { data @include(if: $s) { vehicle { vin } } }`,
        { id, s: true },
      ),
    ).toBe(true);
    expect(
      compare(`query($n: Int) { reports(limit: $n) { items { ...C } total } } fragment C on ReportCompact { token dealership { name } }`, {
        n: 7,
      }),
    ).toBe(true);
    expect(compare(`query($n: Int) { reports(limit: $n) { total } }`, { n: 'x' })).toBe(true);
    expect(compare(getIntrospectionQuery())).toBe(true);
    expect(
      compare(
        `{ a: __type(name: "Report") { ...T } b: __type(name: "User") { ...T } } fragment T on __Type { name fields { name type { name } } }`,
      ),
    ).toBe(true);
  });
});
