/**
 * A page's items as the answer plan writes them (api/answer-plan): every field of an item, selected
 * alone, through a fragment, or beside the page's cursor under every order, must answer what it
 * answers when the whole item is selected. A page whose caller reads no cursor (neither
 * `next_cursor` nor `pageInfo`) reads no row past it and signs none.
 */
import { getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { listReports } from '../../src/features/reports/reports.service';
import type { PrismaClient } from '../../src/generated/prisma/client';
import { CursorCodec } from '../../src/shared/cursor';
import { graphql, startTestServer, type TestServer } from '../support/server';

/** A selection of one field of ReportCompact: its scalar, or the id of its object. */
function selectionOf(type: GraphQLObjectType, field: string): string {
  const named = getNamedType(type.getFields()[field]!.type);
  if (!isObjectType(named)) return field;
  if ('id' in named.getFields()) return `${field} { id }`;
  if ('token' in named.getFields()) return `${field} { token }`;
  return `${field} { ${Object.keys(named.getFields())
    .map((inner) => selectionOf(named, inner))
    .join(' ')} }`;
}

describe.each(['pglite', 'postgres'] as const)('a page’s items, each field alone, on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let itemType: GraphQLObjectType;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 30 });
    key = server.keys[0]!;
    const schema = await buildAppSchema();
    itemType = getNamedType(
      (getNamedType(schema.getQueryType()!.getFields().reports!.type) as GraphQLObjectType).getFields().items!.type,
    ) as GraphQLObjectType;
  });
  afterAll(() => server.close());

  const page = async (items: string, args = 'limit: 30', fragments = '') => {
    const answer = await graphql<{ reports: { items: Record<string, unknown>[]; next_cursor: string | null } }>(
      server,
      `{ reports(${args}) { next_cursor items { ${items} } } } ${fragments}`,
      {},
      key,
    );
    expect(answer.body.errors).toBeUndefined();
    return answer.body.data!.reports;
  };

  it('answers every item field alone as it answers it beside all the others', async () => {
    const fields = Object.keys(itemType.getFields());
    expect(fields.length).toBeGreaterThan(15);
    const whole = await page(fields.map((field) => selectionOf(itemType, field)).join(' '));
    expect(whole.items.length).toBeGreaterThan(10);
    for (const field of fields) {
      const alone = await page(selectionOf(itemType, field));
      expect({ field, values: alone.items.map((item) => item[field]) }).toEqual({ field, values: whole.items.map((item) => item[field]) });
      // Through a fragment, as client code generators write it.
      const spread = await page('...F', 'limit: 30', `fragment F on ReportCompact { ${selectionOf(itemType, field)} }`);
      expect(spread.items.map((item) => item[field])).toEqual(whole.items.map((item) => item[field]));
    }
  });

  it('pages on with its cursor under every order, whatever the items select', async () => {
    for (const orderBy of [
      'created_at',
      '-updated_at',
      'token',
      'type,-created_at',
      'vin',
      '-license_number',
      'brand',
      'dealership_name',
    ]) {
      const whole = [] as string[];
      const thin = [] as string[];
      for (const [into, items] of [
        [whole, 'token created_at updated_at type valid data { vehicle { vin license_number } }'],
        [thin, 'token'],
      ] as const) {
        let cursor: string | null = null;
        do {
          const answer: { items: Record<string, unknown>[]; next_cursor: string | null } = await page(
            items,
            `limit: 7, order_by: "${orderBy}"${cursor ? `, cursor: "${cursor}"` : ''}`,
          );
          into.push(...answer.items.map((item) => String(item.token)));
          cursor = answer.next_cursor;
        } while (cursor);
      }
      expect({ orderBy, tokens: thin }).toEqual({ orderBy, tokens: whole });
      expect(new Set(thin).size).toBe(thin.length);
      expect(thin.length).toBeGreaterThan(10);
    }
  });
});

describe.each(['pglite', 'postgres'] as const)('a page whose caller reads no cursor, on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 30 });
  });
  afterAll(() => server.close());

  /** The real client, with the rows of each statement it answered noted (a page that reads no total runs one). */
  function watched(prisma: PrismaClient): { prisma: PrismaClient; rows: number[] } {
    const rows: number[] = [];
    const queryRaw = async (...args: unknown[]) => {
      const answer = await (prisma.$queryRaw as (...a: unknown[]) => Promise<unknown[]>).apply(prisma, args);
      rows.push(answer.length);
      return answer;
    };
    const proxy = new Proxy(prisma, {
      get: (target, property, receiver) => (property === '$queryRaw' ? queryRaw : (Reflect.get(target, property, receiver) as unknown)),
    });
    return { prisma: proxy, rows };
  }

  it('reads the page’s rows only, and signs no cursor; asked for one, it reads one row more', async () => {
    const organizationId = server.dataset.organizations[0]!.id;
    const cursors = new CursorCodec('page-columns test secret');
    const page = { limit: 5, offset: 0 };

    const without = watched(server.db.prisma);
    const plain = await listReports(without.prisma, organizationId, {}, page, { countTotal: false, cursors, nextPage: false });
    expect(plain.items).toHaveLength(5);
    expect(without.rows).toEqual([5]);
    expect(plain).not.toHaveProperty('next_cursor');
    expect(plain).not.toHaveProperty('pageInfo');

    const withCursor = watched(server.db.prisma);
    const paged = await listReports(withCursor.prisma, organizationId, {}, page, { countTotal: false, cursors, nextPage: true });
    expect(withCursor.rows).toEqual([6]);
    expect(paged.items.map((item) => item.token)).toEqual(plain.items.map((item) => item.token));
    expect(paged).toMatchObject({ next_cursor: expect.any(String) as unknown });
  });
});
