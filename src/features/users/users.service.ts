import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { keyCondition } from '../../platform/db/key-condition';
import { prepared } from '../../platform/db/prepared-statements';
import { checkCursorWithOffset, keysetCondition, keyTerms, type CursorCodec, type CursorScope, type KeyColumn } from '../../shared/cursor';
import { orderByClause, orderTerms, prismaOrderBy, type OrderTerm } from '../../shared/order-by';
import { keysetPage, pageBounds, type Page, type PageRequest } from '../../shared/pagination';
import { USER_ORDER_FIELDS, type User, type UsersArgs } from './user.types';

const DEFAULT_USER_ORDER: OrderTerm[] = [{ field: 'created_at', descending: true }];

export const USER_SELECT = {
  id: true,
  name: true,
  is_active: true,
  created_at: true,
  organization_id: true,
  entity_id: true,
  dealership_id: true,
  created_by: true,
  role: true,
  photo: true,
  phone: true,
  position: true,
  email: true,
  last_activity: true,
  address: true,
} satisfies Prisma.UserSelect;

/** Each sort column's type and nullability, for cursors (`shared/cursor.ts`). */
const USER_KEY_COLUMNS: Record<string, KeyColumn> = {
  created_at: { sql: 'u.created_at', type: { kind: 'timestamptz' }, nullable: false },
  name: { sql: 'u.name', type: { kind: 'text' }, nullable: false },
  email: { sql: 'u.email', type: { kind: 'text' }, nullable: true },
  last_activity: { sql: 'u.last_activity', type: { kind: 'timestamptz' }, nullable: true },
  id: { sql: 'u.id', type: { kind: 'uuid' }, nullable: false },
};

export async function listUsers(
  prisma: PrismaClient,
  organizationId: string,
  args: Partial<UsersArgs> & { cursor?: string | null },
  cursors?: CursorCodec,
): Promise<Page<User>> {
  checkCursorWithOffset(args.cursor, args.offset);
  const { limit, offset } = pageBounds(args);
  const order = orderTerms(args.order_by, USER_ORDER_FIELDS, DEFAULT_USER_ORDER);
  const { limit: _limit, offset: _offset, order_by: _order, cursor: _cursor, ...filters } = args;
  const terms = keyTerms(order, USER_KEY_COLUMNS, 'id');
  const scope: CursorScope = { list: 'users', organizationId, order: terms, filters };
  const after = args.cursor && cursors ? cursors.decode(args.cursor, scope) : undefined;
  const where: Prisma.UserWhereInput = {
    AND: [
      { organization_id: organizationId },
      args.organization_id ? { organization_id: args.organization_id } : {},
      args.entity_id ? { entity_id: args.entity_id } : {},
      args.created_at__gte ? { created_at: { gte: args.created_at__gte } } : {},
      args.created_at__lte ? { created_at: { lte: args.created_at__lte } } : {},
    ],
  };
  const take = cursors ? limit + 1 : limit;
  // Prisma's query API cannot say "after this key" with NULL-aware mixed directions: a cursor's page
  // is one raw statement in the same order (orderByClause sorts as prismaOrderBy does).
  const rows = after
    ? prisma.$queryRaw<User[]>`
        SELECT ${USER_COLUMNS} FROM users u
        WHERE u.organization_id = ${organizationId}::uuid
          ${args.organization_id ? Prisma.sql`AND u.organization_id = ${args.organization_id}::uuid` : Prisma.empty}
          ${args.entity_id ? Prisma.sql`AND u.entity_id = ${args.entity_id}::uuid` : Prisma.empty}
          ${args.created_at__gte ? Prisma.sql`AND u.created_at >= ${args.created_at__gte}` : Prisma.empty}
          ${args.created_at__lte ? Prisma.sql`AND u.created_at <= ${args.created_at__lte}` : Prisma.empty}
          AND ${keysetCondition(terms, after)}
        ORDER BY ${orderByClause(order, USER_ORDER_COLUMNS, 'u.id')}
        LIMIT ${take}`
    : prisma.user.findMany({
        where,
        orderBy: prismaOrderBy<Prisma.UserOrderByWithRelationInput>(order, 'id'),
        skip: offset,
        take,
        select: USER_SELECT,
      });
  const [found, total] = await Promise.all([rows, prisma.user.count({ where })]);
  return keysetPage(found, { limit, offset, total }, cursors && { codec: cursors, scope, terms, given: args.cursor });
}

const USER_ORDER_COLUMNS: Record<string, string> = Object.fromEntries(Object.entries(USER_KEY_COLUMNS).map(([f, c]) => [f, c.sql]));

/** The columns of USER_SELECT, for the raw statements of the per-request loaders (and the pages that plan their profiles in). */
export const USER_COLUMNS = Prisma.raw(
  'u.id, u.name, u.is_active, u.created_at, u.organization_id, u.entity_id, u.dealership_id, u.created_by, ' +
    'u.role, u.photo, u.phone, u.position, u.email, u.last_activity, u.address',
);

/** Raw SQL on this per-request path (every page's `profile`): Prisma's findMany costs more CPU than the statement. */
export function findUsers(prisma: PrismaClient, organizationId: string, ids: readonly string[]): Promise<User[]> {
  return prisma.$queryRaw<User[]>(
    prepared(
      Prisma.sql`SELECT ${USER_COLUMNS} FROM users u WHERE u.organization_id = ${organizationId}::uuid AND ${keyCondition('u.id', ids)}`,
    ),
  );
}

/** A page of users for each of several dealerships, in one statement plus one count. */
export async function listUsersByDealership(
  prisma: PrismaClient,
  organizationId: string,
  dealershipIds: string[],
  page: PageRequest,
): Promise<Map<string, Page<User>>> {
  const { limit, offset } = pageBounds(page);
  const [rows, counts] = await Promise.all([
    prisma.$queryRaw<(User & { row_number: number })[]>`
      SELECT * FROM (
        SELECT ${USER_COLUMNS},
               row_number() OVER (PARTITION BY u.dealership_id ORDER BY u.created_at DESC, u.id) AS row_number
        FROM users u
        WHERE u.organization_id = ${organizationId}::uuid AND u.dealership_id = ANY(${dealershipIds}::uuid[])
      ) ranked
      WHERE row_number > ${offset} AND row_number <= ${offset + limit}
      ORDER BY row_number`,
    prisma.$queryRaw<{ dealership_id: string; total: number }[]>`
      SELECT u.dealership_id, count(*)::int AS total FROM users u
      WHERE u.organization_id = ${organizationId}::uuid AND u.dealership_id = ANY(${dealershipIds}::uuid[])
      GROUP BY u.dealership_id`,
  ]);
  const pages = new Map<string, Page<User>>(dealershipIds.map((id) => [id, { items: [], limit, offset, total: 0 }]));
  for (const count of counts) pages.get(count.dealership_id)!.total = Number(count.total);
  for (const { row_number: _rank, ...user } of rows) pages.get(user.dealership_id!)?.items.push(user);
  return pages;
}

/** What a user's answer depends on, read before it (conditional requests): the row's version (`xmin`), new with every write, whoever makes it. */
export async function userVersion(prisma: PrismaClient, organizationId: string, id: string): Promise<string | null> {
  const rows = await prisma.$queryRaw<{ version: string }[]>`
    SELECT u.xmin::text AS version FROM users u WHERE u.id = ${id}::uuid AND u.organization_id = ${organizationId}::uuid`;
  return rows[0]?.version ?? null;
}
