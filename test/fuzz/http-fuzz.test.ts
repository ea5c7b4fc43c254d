/**
 * Fuzzing every endpoint over real HTTP: the REST routes (with hostile paths, query strings,
 * bodies and headers), POST/GET /graphql (random operations from the schema, abusive and broken
 * documents and envelopes) and paths outside the API. For every answer:
 * - never a 5xx, always JSON (browser pages excepted), errors in the documented shape
 *   (response-shapes.ts);
 * - nothing written unless a lead was created: the row count of every table and the quota units
 *   taken are read before and after each request (row-counts.ts).
 *
 * `npm test` sends FUZZ_RUNS (default 300) requests per database, plus a third as many with
 * hostile text in one argument, with a fixed seed; `npm run fuzz` sends 10,000 (+3,334) per
 * database with a new seed each time. A failure prints the seed and path to replay it:
 * FUZZ_SEED=<seed> FUZZ_PATH=<path> npm run fuzz (leads and quota used carry state from one
 * request to the next, so a replay of one path is close, not exact).
 * FUZZ_DATABASES=postgres (or pglite) limits the run to one database; `-- -t hostile` picks one test.
 */
import fc from 'fast-check';
import { REST_BASE_PATH, REST_ROUTES } from '../../src/api/rest/routes';
import type { DatabaseKind } from '../../src/platform/db/database';
import { DATABASE_KINDS } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';
import { buildFuzzContext, type FuzzContext } from './fuzz-context';
import { graphqlRequest } from './graphql-requests';
import type { RawResponse } from './raw-http';
import { sendRaw, sendSocket } from './raw-http';
import { responseProblems } from './response-shapes';
import { otherPathRequest, restRequest, type FuzzRequest } from './rest-requests';
import { socketRequest } from './socket-requests';
import { countRows, rowDelta, type RowCounts } from './row-counts';
import { textArgumentRequest, textArguments } from './text-arguments';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** The targeted hostile-text requests: a third of RUNS, on top of it. */
const TEXT_RUNS = Math.ceil(RUNS / 3);
/** Fixed in `npm test` (a failure reproduces); `random` (npm run fuzz) explores anew each run and prints it. */
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : process.env.FUZZ_SEED
      ? Number(process.env.FUZZ_SEED)
      : 20261122;
const PATH = process.env.FUZZ_PATH;
const KINDS = (process.env.FUZZ_DATABASES?.split(',') as DatabaseKind[] | undefined) ?? DATABASE_KINDS;

function anyRequest(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 11, arbitrary: restRequest(context) },
    { weight: 7, arbitrary: graphqlRequest(context) },
    { weight: 2, arbitrary: otherPathRequest(context) },
    { weight: 1, arbitrary: socketRequest(context) },
  );
}

/** How many leads the answer says were created: a REST 201, or createLead results of a mutation. */
function leadsCreated(request: FuzzRequest, response: RawResponse): number {
  if (request.interface === 'rest') return response.status === 201 ? 1 : 0;
  if (request.interface !== 'graphql' || request.method !== 'POST') return 0;
  const text = request.body?.toString() ?? '';
  if (!text.includes('mutation') || !text.includes('createLead')) return 0;
  try {
    const data = (JSON.parse(response.text) as { data?: Record<string, unknown> | null }).data;
    return Object.values(data ?? {}).filter((value) => typeof value === 'object' && value !== null).length;
  } catch {
    return 0;
  }
}

const NEVER_WRITTEN: (keyof RowCounts)[] = ['organizations', 'entities', 'dealerships', 'users', 'api_keys', 'notification_attempts'];

function writeProblems(leads: number, before: RowCounts, after: RowCounts): string[] {
  const delta = rowDelta(before, after);
  if (leads === 0) return Object.keys(delta).length > 0 ? [`a request that created no lead wrote ${JSON.stringify(delta)}`] : [];
  const problems: string[] = [];
  const reports = delta.reports ?? 0;
  if (reports < 0 || reports > leads) problems.push(`${leads} lead(s) created ${reports} reports`);
  if ((delta.contacts ?? 0) !== reports) problems.push(`${reports} report(s) but ${delta.contacts ?? 0} contacts`);
  const outbox = delta.notification_outbox ?? 0;
  if (outbox < 0 || outbox > 2 * reports) problems.push(`${reports} report(s) but ${outbox} outbox rows`);
  const keys = delta.idempotency_keys ?? 0;
  if (keys < 0 || keys > reports) problems.push(`${reports} report(s) but ${keys} idempotency keys`);
  for (const table of NEVER_WRITTEN) if (delta[table] !== undefined) problems.push(`a lead changed ${table} by ${delta[table]}`);
  return problems;
}

/** The request as a failure report shows it: long values cut. */
function summary(request: FuzzRequest): Record<string, unknown> {
  const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
  return {
    method: request.method,
    path: cut(request.path),
    headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.map(cut) : cut(v)])),
    body:
      request.body === undefined
        ? undefined
        : Buffer.isBuffer(request.body)
          ? `<bytes ${request.body.toString('hex').slice(0, 200)}>`
          : cut(request.body),
    raw: request.raw === undefined ? undefined : cut(JSON.stringify(request.raw.toString('latin1'))),
  };
}

interface RunStats {
  byTarget: Map<string, number>;
  byStatus: Map<number, number>;
  leads: number;
}

/** Sends every generated request and checks its answer and what it wrote. */
async function fuzz(server: TestServer, requests: fc.Arbitrary<FuzzRequest>, runs: number): Promise<RunStats> {
  const stats: RunStats = { byTarget: new Map(), byStatus: new Map(), leads: 0 };
  let before = await countRows(server.db);
  await fc.assert(
    fc.asyncProperty(requests, async (request) => {
      const response = request.raw ? await sendSocket(server.url, request.raw) : await sendRaw(server.url, request);
      const after = await countRows(server.db);
      const created = leadsCreated(request, response);
      const problems = [...responseProblems(request.interface, request.method, response), ...writeProblems(created, before, after)];
      before = after;
      stats.leads += created;
      stats.byTarget.set(request.target, (stats.byTarget.get(request.target) ?? 0) + 1);
      stats.byStatus.set(response.status, (stats.byStatus.get(response.status) ?? 0) + 1);
      const answer = { status: response.status, body: response.text.slice(0, 500) };
      expect({ request: summary(request), answer, problems }).toEqual({ request: summary(request), answer, problems: [] });
    }),
    { seed: SEED, path: PATH, numRuns: runs },
  );
  return stats;
}

const statusLine = (stats: RunStats) =>
  [...stats.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');

describe.each(KINDS)('fuzzing every endpoint (%s)', (kind) => {
  let server: TestServer;
  let context: FuzzContext;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 120 });
    context = await buildFuzzContext(server);
  });

  afterAll(async () => {
    await server?.close();
  });

  it(
    `${RUNS} generated requests: no 5xx, documented error shapes, nothing written unless a lead was created`,
    async () => {
      const stats = await fuzz(server, anyRequest(context), RUNS);
      process.stdout.write(`fuzz (${kind}): ${RUNS} requests, seed ${SEED}, ${stats.leads} leads created; statuses ${statusLine(stats)}\n`);
      // Every route was exercised, and the generators reach past validation often enough to matter.
      if (RUNS >= 200) {
        for (const route of REST_ROUTES) expect(stats.byTarget.get(`${route.method} ${REST_BASE_PATH}${route.path}`)).toBeGreaterThan(0);
        expect(stats.byTarget.get('POST /graphql')).toBeGreaterThan(0);
        expect(stats.byStatus.get(200)).toBeGreaterThan(RUNS / 10);
      }
    },
    Math.max(60_000, RUNS * 200),
  );

  it(
    `${TEXT_RUNS} requests with hostile text (NUL, lone surrogates, ...) in one text argument of every route and root field`,
    async () => {
      const stats = await fuzz(server, textArgumentRequest(context), TEXT_RUNS);
      process.stdout.write(`fuzz (${kind}): ${TEXT_RUNS} hostile-text requests; statuses ${statusLine(stats)}\n`);
      // Every text argument got at least one request once the run is long enough to draw them all.
      const targets = textArguments(context).map((t) => t.target);
      if (TEXT_RUNS >= targets.length * 4) expect(targets.filter((t) => !stats.byTarget.has(t))).toEqual([]);
    },
    Math.max(60_000, TEXT_RUNS * 200),
  );
});
