/**
 * The answer plan against graphql-js, byte for byte (issue 44): seeded random selections of the
 * report types (subsets of the leaves, aliases, fragments, `__typename`, relations, @include and
 * @skip, whole documents, pages with filters, orders and cursors) over generated stored documents
 * (missing keys, null, each JSON type where another is declared, numeric strings, 1e21, -0,
 * 2^53+1, trailing zeros, long doubles, NaN-like strings, unicode and controls, deep and empty
 * arrays, extra keys, array-index keys). For each pair, the answer of the plan (its SQL, the
 * typed path for what it hands over, the rest by graphql-js) equals graphql-js's own answer over
 * the same database: the same JSON text, the same errors. Both outcomes of the plan must occur:
 * rows written by PostgreSQL and rows handed to the typed path.
 *
 * Fixed seed in `npm test`; FUZZ_SEED=<n> (or `random`) replays or varies it, GENERATED_ANSWERS
 * sets the number of selections.
 */
import {
  execute,
  getNamedType,
  getVariableValues,
  isObjectType,
  parse,
  type ExecutionResult,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { answerWithPlan, type AnswerPath } from '../../src/api/answer-plan/answer-operation';
import { AnswerPlans } from '../../src/api/answer-plan/answer-plans';
import { stringifyResult } from '../../src/api/answer-plan/raw-json';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { createRequestContext, type ApiServices } from '../../src/api/request-context';
import { readColumnCatalog } from '../../src/platform/db/column-catalog';
import type { Database } from '../../src/platform/db/database';
import { buildDemoDataset, type DemoDataset } from '../../src/seed/dataset';
import { seedDatabase } from '../../src/seed/seed-database';
import { SeededRandom } from '../../src/seed/vehicles';
import { restSelectionOf } from '../../src/shared/schema/rest-visibility';
import { CursorCodec } from '../../src/shared/cursor';
import { createMigratedDatabase, DATABASE_KINDS } from '../support/databases';
import { generatedDocument, WELL_TYPED } from './generated-documents';

// 41 × (24 reports + a page) = 1,025 pairs per database in `npm test`.
const SELECTIONS = Number(process.env.GENERATED_ANSWERS ?? 41);
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() : process.env.FUZZ_SEED === undefined ? 44 : Number(process.env.FUZZ_SEED);
/** Reports with generated documents: some well typed throughout, the others with odd values here and there. */
const REPORTS = 24;

/** Fields a written selection cannot hold (their own resolvers): drawn rarely, to see the typed path take the field. */
const RARE = new Set(['notifications', 'users', 'reports']);

/** A random selection of `type`'s fields (a GraphQL selection set's text, without braces). */
function selectionOf(type: GraphQLObjectType, random: SeededRandom, depth: number, fragments: string[]): string {
  const fields = Object.values(type.getFields()).filter((field) => field.args.length === 0 || random.bool(0.02));
  const chosen = fields.filter((field) => (RARE.has(field.name) ? random.bool(0.03) : random.bool(depth === 0 ? 0.6 : 0.45)));
  if (chosen.length === 0) chosen.push(random.pick(fields.filter((field) => !RARE.has(field.name))));
  const parts: string[] = [];
  for (const field of chosen) {
    const named = getNamedType(field.type);
    let head = field.name;
    if (random.bool(0.12)) head = `${random.pick(['a', 'b', 'x'])}${random.int(0, 3)}_${field.name}: ${head}`;
    if (field.args.length > 0) head += '(limit: 2)';
    let body = '';
    if (isObjectType(named)) {
      // Relations nest a level or two; documents go all the way down.
      const deep = depth > 5 || (['counter', 'dealership', 'profile', 'organization', 'contact'].includes(field.name) && depth > 1);
      body = deep ? ' { __typename }' : ` { ${selectionOf(named, random, depth + 1, fragments)} }`;
    }
    const roll = random.next();
    const directive = roll < 0.04 ? ' @include(if: $on)' : roll < 0.07 ? ' @skip(if: $on)' : roll < 0.09 ? ' @include(if: false)' : '';
    parts.push(`${head}${directive}${body}`);
    // The same field again (merged with the first by graphql-js).
    if (random.bool(0.05)) parts.push(`${head}${body}`);
  }
  if (random.bool(0.08)) parts.push('__typename');
  if (random.bool(0.1)) {
    const inner = parts.splice(0, random.int(1, parts.length));
    if (random.bool(0.5)) parts.push(`... on ${type.name} { ${inner.join(' ')} }`);
    else {
      const name = `F${fragments.length}`;
      fragments.push(`fragment ${name} on ${type.name} { ${inner.join(' ')} }`);
      parts.push(`...${name}`);
    }
  }
  return parts.join(' ');
}

/** The whole document of a type, every field in order (the REST body's part: written from the typed columns). */
function wholeSelection(type: GraphQLObjectType): string {
  return Object.values(type.getFields())
    .map((field) => {
      const named = getNamedType(field.type);
      return isObjectType(named) ? `${field.name} { ${wholeSelection(named)} }` : field.name;
    })
    .join(' ');
}

interface Case {
  query: string;
  variables: Record<string, unknown>;
}

function reportCase(schema: GraphQLSchema, random: SeededRandom, token: string): Case {
  const report = schema.getType('Report') as GraphQLObjectType;
  const fragments: string[] = [];
  let selection: string;
  if (random.bool(0.25)) {
    // The REST body's selection, or a document of it whole.
    const data = schema.getType('ReportData') as GraphQLObjectType;
    selection = random.bool(0.5) ? restSelectionOf(report) : `token data { ${wholeSelection(data)} } valid`;
  } else selection = selectionOf(report, random, 0, fragments);
  const alias = random.bool(0.2) ? 'one: ' : '';
  return {
    query: `query Generated($id: UUID!, $on: Boolean = true) { ${alias}report(report_id: $id) { ${selection} } } ${fragments.join(' ')}`,
    variables: { id: token, on: random.bool(0.7) },
  };
}

function pageCase(schema: GraphQLSchema, random: SeededRandom, dataset: DemoDataset): Case {
  const item = schema.getType('ReportCompact') as GraphQLObjectType;
  const fragments: string[] = [];
  const filters = [
    '',
    'type: remote',
    'valid: false',
    `dealership_id: "${random.pick(dataset.dealerships).id}"`,
    'order_by: "vin,-created_at"',
    'order_by: "-updated_at"',
    'order_by: "dealership_name"',
    'search: "a"',
    'limit: 7, offset: 3',
  ];
  const envelope = random.sample(
    ['limit', 'offset', 'total', 'next_cursor', 'pageInfo { endCursor hasNextPage }', '__typename'],
    random.int(0, 4),
  );
  const query = `query Page($on: Boolean = true) { reports(limit: ${random.int(0, 30)}${random.bool(0.6) ? `, ${random.pick(filters)}` : ''}) { items { ${selectionOf(item, random, 0, fragments)} } ${envelope.join(' ')} } } ${fragments.join(' ')}`;
  return { query, variables: { on: random.bool(0.7) } };
}

describe.each(DATABASE_KINDS)('the answer plan writes what graphql-js writes, on %s', (kind) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let schema: GraphQLSchema;
  let plans: AnswerPlans;
  let dataset: DemoDataset;
  let organizationId: string;
  let tokens: string[];
  const services = () => ({ db, appBaseUrl: 'http://localhost', cursors: new CursorCodec('generated answers') }) as unknown as ApiServices;
  const contextOf = () => createRequestContext(services(), { principal: { organizationId } as never, log: () => console as never });

  beforeAll(async () => {
    ({ db, cleanup } = await createMigratedDatabase(kind));
    dataset = buildDemoDataset({ reports: 20 });
    await seedDatabase(db.prisma, dataset);
    organizationId = dataset.organizations[0]!.id;
    schema = await buildAppSchema();
    const random = new SeededRandom(SEED);
    tokens = [];
    const dealerships = dataset.dealerships.filter((d) => d.organization_id === organizationId);
    const users = dataset.users.filter((u) => u.organization_id === organizationId);
    const own = dataset.reports.filter((r) => r.organization_id === organizationId);
    for (let index = 0; index < REPORTS; index += 1) {
      const document = generatedDocument(schema, random, index % 3 === 0 ? WELL_TYPED : 0.03);
      const rows = await db.prisma.$queryRawUnsafe<{ token: string }[]>(
        `INSERT INTO reports (token, organization_id, entity_id, dealership_id, profile_id, counter_id, type, valid, data, state, real_costs, created_at)
         VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::uuid, $6::"ReportType", $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::timestamptz) RETURNING token::text`,
        organizationId,
        dealerships[0]!.entity_id,
        random.bool(0.8) ? random.pick(dealerships).id : null,
        random.bool(0.7) ? random.pick(users).id : null,
        random.bool(0.3) ? random.pick(own).token : null,
        random.pick(['inspection', 'remote', 'counter_inspection']),
        random.bool(0.8),
        document.data,
        document.state,
        document.real_costs,
        random.pick(['2026-01-02T03:04:05.678Z', '2025-06-30T23:59:59.999Z', '0099-12-31T23:59:59.999Z', '2024-02-29T12:00:00.000Z']),
      );
      tokens.push(rows[0]!.token);
    }
    plans = new AnswerPlans(schema, await readColumnCatalog(db.prisma));
  }, 120_000);
  afterAll(() => cleanup());

  const run = async ({ query, variables }: Case) => {
    const document = parse(query);
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
    if (coerced.errors) throw coerced.errors[0];
    const paths: AnswerPath[] = [];
    const plan = plans.plan(document, operation, coerced.coerced);
    const context = contextOf();
    const planned: ExecutionResult = plan
      ? await answerWithPlan(plan, {
          document,
          operation,
          variables: coerced.coerced,
          context,
          argumentsChecked: false,
          rows: plans.rows,
          onAnswered: (_field, path) => paths.push(path),
          typed: (typed) =>
            Promise.resolve(execute({ schema, document: typed.document, contextValue: context, variableValues: variables })),
        })
      : await execute({ schema, document, contextValue: context, variableValues: variables });
    const oracle = await execute({ schema, document, contextValue: contextOf(), variableValues: variables });
    const errorsOf = (result: ExecutionResult) =>
      (result.errors ?? []).map((error) => `${JSON.stringify(error.path)} ${error.message}`).sort();
    return {
      planned: stringifyResult({ data: planned.data }),
      oracle: stringifyResult({ data: oracle.data }),
      plannedErrors: errorsOf(planned),
      oracleErrors: errorsOf(oracle),
      paths,
      planned_: plan !== undefined,
    };
  };

  it(`${SELECTIONS} selections of one report x ${REPORTS} reports, and ${SELECTIONS} pages: the plan's answer is graphql-js's (seed ${SEED})`, async () => {
    process.stdout.write(`generated answers on ${kind}: FUZZ_SEED=${SEED}\n`);
    const random = new SeededRandom(SEED + 1);
    const counted = new Map<AnswerPath | 'unplanned', number>();
    let pairs = 0;
    const check = async (which: Case) => {
      const outcome = await run(which);
      pairs += 1;
      if (!outcome.planned_) counted.set('unplanned', (counted.get('unplanned') ?? 0) + 1);
      for (const path of outcome.paths) counted.set(path, (counted.get(path) ?? 0) + 1);
      if (outcome.planned !== outcome.oracle || outcome.plannedErrors.join('\n') !== outcome.oracleErrors.join('\n')) {
        throw new Error(
          `the plan's answer differs (FUZZ_SEED=${SEED})\n${which.query}\n${JSON.stringify(which.variables)}\nplanned: ${outcome.planned.slice(0, 4000)}\n${outcome.plannedErrors.join('\n')}\ngraphql-js: ${outcome.oracle.slice(0, 4000)}\n${outcome.oracleErrors.join('\n')}`,
        );
      }
    };
    for (let index = 0; index < SELECTIONS; index += 1) {
      const query = reportCase(schema, random, tokens[0]!);
      for (const token of tokens) await check({ query: query.query, variables: { ...query.variables, id: token } });
      await check(pageCase(schema, random, dataset));
    }
    process.stdout.write(`generated answers on ${kind}: ${pairs} pairs, ${JSON.stringify(Object.fromEntries(counted))}\n`);
    expect(pairs).toBeGreaterThanOrEqual(1000);
    // Both ways occur: most rows written by PostgreSQL, some handed to the typed path.
    expect(counted.get('written') ?? 0).toBeGreaterThan(pairs / 3);
    expect(counted.get('typed_row') ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
