/**
 * Child process: the smallest server that answers the benchmark's requests with the SAME SQL as
 * the application (the builders of src/features/reports/report-query.ts), over bare express + `pg`, with
 * the same pool size. No API-key lookup (a fixed organization), no validation layer, no GraphQL
 * (but for `apolloFloor`): the difference to the real app is the price of those layers.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ApolloServer, HeaderMap } from '@apollo/server';
import express, { type Request } from 'express';
import {
  getNamedType,
  GraphQLScalarType,
  Kind,
  parse,
  type FieldNode,
  type GraphQLObjectType,
  type OperationDefinitionNode,
} from 'graphql';
import pg from 'pg';
import { buildAppSchema } from '../src/api/graphql/schema';
import { projector } from '../src/api/answer-plan/projection';
import { RawJson, stringifyResult } from '../src/api/answer-plan/raw-json';
import { graphqlTypedSelectionQuery } from './scenarios';
import type { Prisma } from '../src/generated/prisma/client';
import { parseReportOrder, reportCountSql, reportPageSql, type CompactReportRow } from '../src/features/reports/report-query';
import type { ReportFilterArgs } from '../src/features/reports/report-filters.args';

const organizationId = process.env.BENCH_ORGANIZATION_ID!;
// The app's pool bounds every statement (PG_STATEMENT_TIMEOUT_MS, 30 s by default); so does this one.
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.PG_POOL_MAX || 10),
  statement_timeout: Number(process.env.PG_STATEMENT_TIMEOUT_MS || 30_000),
});

const run = async <T extends pg.QueryResultRow>(statement: Prisma.Sql): Promise<T[]> =>
  (await pool.query<T>(statement.text, statement.values as unknown[])).rows;

const DATE_FILTERS = new Set(['created_at__gte', 'created_at__lte', 'updated_at__gte', 'updated_at__lte']);

/** The query string as the validation layer would hand it over (no error reporting). */
function filtersOf(req: Request): { filters: Partial<ReportFilterArgs>; limit: number; offset: number; order_by?: string } {
  const q = req.query as Record<string, string>;
  const filters: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(q)) {
    if (['limit', 'offset', 'order_by'].includes(name)) continue;
    if (DATE_FILTERS.has(name)) filters[name] = new Date(raw);
    else if (name.endsWith('contains')) filters[name] = JSON.parse(raw);
    else if (name === 'valid') filters[name] = raw === 'true';
    else filters[name] = raw;
  }
  return { filters, limit: q.limit ? Number(q.limit) : 100, offset: q.offset ? Number(q.offset) : 0, order_by: q.order_by };
}

async function reportPage(req: Request, limitOverride?: number) {
  const { filters, limit, offset, order_by } = filtersOf(req);
  const query = { organizationId, filters, limit: limitOverride ?? limit, offset, order: parseReportOrder(order_by) };
  const [items, count] = await Promise.all([
    run<CompactReportRow>(reportPageSql(query)),
    run<{ total: number }>(reportCountSql(organizationId, filters)),
  ]);
  return { items, limit: query.limit, offset, total: count[0]!.total };
}

const app = express();
app.disable('x-powered-by');

app.get('/public/reports/', async (req, res) => {
  const page = await reportPage(req);
  res.json({ ...page, items: page.items.map((r) => ({ ...r, data: { vehicle: { vin: r.vin, license_number: r.license_number } } })) });
});

app.get('/public/reports/:token', async (req, res) => {
  const rows = await pool.query(
    `SELECT token, created_at, updated_at, organization_id, entity_id, dealership_id, profile_id, contact_id, counter_id, type, valid, data, state, real_costs
     FROM reports WHERE token = $1 AND organization_id = $2`,
    [req.params.token, organizationId],
  );
  if (rows.rows.length === 0) res.status(404).json({ detail: 'Report not found' });
  else res.json(rows.rows[0]);
});

// The GraphQL scenario's data (GRAPHQL_PAGE): a page of 100 with each report's dealership and profile.
app.post('/graphql', async (req, res) => {
  const page = await reportPage(req, 100);
  const ids = (column: keyof CompactReportRow) => [...new Set(page.items.map((r) => r[column]).filter(Boolean))];
  const [dealerships, users] = await Promise.all([
    pool.query('SELECT id, name FROM dealerships WHERE id = ANY($1::uuid[])', [ids('dealership_id')]),
    pool.query('SELECT id, name, email FROM users WHERE id = ANY($1::uuid[])', [ids('profile_id')]),
  ]);
  const byId = (rows: { id: string }[]) => new Map(rows.map(({ id, ...rest }) => [id, rest]));
  const [d, u] = [byId(dealerships.rows), byId(users.rows)];
  res.json({
    data: {
      reports: {
        total: page.total,
        items: page.items.map((r) => ({
          token: r.token,
          created_at: r.created_at,
          dealership: d.get(r.dealership_id ?? '') ?? null,
          profile: u.get(r.profile_id ?? '') ?? null,
        })),
      },
    },
  });
});

// Lead creation: take a quota unit and insert the report in one transaction, as the app does.
app.post('/public/reports/create-lead', express.json(), async (req, res) => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const dealership = await client.query<{ entity_id: string }>(
      'SELECT entity_id FROM dealerships WHERE id = $1 AND organization_id = $2',
      [req.body.dealership, organizationId],
    );
    const entityId = dealership.rows[0]!.entity_id;
    const quota = await client.query(
      'UPDATE entities SET remote_quota_used = remote_quota_used + 1 WHERE id = $1 AND remote_quota_used < remote_quota RETURNING id',
      [entityId],
    );
    if (quota.rowCount === 0) throw new Error('quota');
    const token = randomUUID();
    const now = new Date().toISOString();
    await client.query(
      `INSERT INTO reports (token, organization_id, entity_id, dealership_id, type, valid, data, state)
       VALUES ($1, $2, $3, $4, 'remote', true, $5, $6)`,
      [
        token,
        organizationId,
        entityId,
        req.body.dealership,
        JSON.stringify({ metadata: { name: req.body.folder_name ?? null, individual: { name: req.body.name ?? null } } }),
        JSON.stringify({ folder_created: { status: true, date: now } }),
      ],
    );
    await client.query('COMMIT');
    res.status(201).json({ token, link: `https://app.example/reports/${token}` });
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
});

/**
 * The floor of the required GraphQL stack for the peers' typed selection ((e), (f)): Apollo Server
 * with its defaults (no plugins, key, limits, access log or metrics) behind express's JSON body
 * reader, one pg statement per report reading its typed text, the app's own projection of it
 * (answer-plan/projection.ts), written as it is (answer-plan/raw-json.ts). What the app costs
 * over this is its own layers; what this costs over PostGraphile, the stack's.
 */
async function apolloFloor(): Promise<express.RequestHandler> {
  const schema = await buildAppSchema();
  const typed = parse(await graphqlTypedSelectionQuery()).definitions[0] as OperationDefinitionNode;
  const reportNode = typed.selectionSet.selections[0] as FieldNode;
  const dataNode = reportNode.selectionSet!.selections.find((node) => node.kind === Kind.FIELD && node.name.value === 'data') as FieldNode;
  const dataType = getNamedType((schema.getType('Report') as GraphQLObjectType).getFields().data!.type) as GraphQLObjectType;
  const project = projector({ schema, fragments: {}, variables: {} }, dataType, [dataNode]);
  const server = new ApolloServer({
    typeDefs: 'scalar WrittenJson type Query { report(report_id: ID!): WrittenJson }',
    resolvers: {
      WrittenJson: new GraphQLScalarType({ name: 'WrittenJson', serialize: (value) => value }),
      Query: {
        report: async (_: unknown, { report_id }: { report_id: string }) => {
          // Prepared once per connection, as the app's statements are.
          const { rows } = await pool.query<{ token: string; updated_at: Date; typed_data: string }>({
            name: 'apollo-floor-report',
            text: 'SELECT token, updated_at, typed_data FROM reports WHERE token = $1 AND organization_id = $2',
            values: [report_id, organizationId],
          });
          const row = rows[0];
          if (!row) return null;
          return new RawJson(`{"token":"${row.token}","updated_at":"${row.updated_at.toISOString()}","data":${project(row.typed_data)}}`);
        },
      },
    },
    stringifyResult,
  });
  await server.start();
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const answer = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: '', body: req.body as unknown },
      context: async () => ({}),
    });
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    res.statusCode = answer.status ?? 200;
    res.end(answer.body.kind === 'complete' ? answer.body.string : '');
  };
}

void apolloFloor().then((floor) => {
  app.post('/apollo', express.json(), floor);
  const server = createServer(app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
});
process.on('disconnect', () => process.exit(0));
