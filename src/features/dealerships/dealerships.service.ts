import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { keyCondition } from '../../platform/db/key-condition';
import { checkCursorWithOffset, keysetCondition, keyTerms, type CursorCodec, type CursorScope, type KeyColumn } from '../../shared/cursor';
import { orderByClause, orderTerms, prismaOrderBy, type OrderTerm } from '../../shared/order-by';
import { keysetPage, pageBounds, type Page } from '../../shared/pagination';
import { DEALERSHIP_ORDER_FIELDS, userCountSql, type Dealership, type DealershipsArgs } from './dealership.types';

const DEFAULT_DEALERSHIP_ORDER: OrderTerm[] = [
  { field: 'position', descending: false },
  { field: 'name', descending: false },
];

const dealershipSelect = (organizationId: string) =>
  ({
    id: true,
    name: true,
    created_at: true,
    updated_at: true,
    organization_id: true,
    entity_id: true,
    address: true,
    logo: true,
    illustration_img: true,
    more_info: true,
    siret: true,
    position: true,
    headquarter: true,
    brands: true,
    // user_count: active users only (api-behaviour.md), and only the organization's own (a user of
    // another organization attached to this dealership by bad data is not counted: test/tenancy)
    _count: { select: { users: { where: { is_active: true, organization_id: organizationId } } } },
  }) satisfies Prisma.DealershipSelect;

type DealershipRow = Prisma.DealershipGetPayload<{ select: ReturnType<typeof dealershipSelect> }>;

function toDealership({ _count, ...row }: DealershipRow): Dealership {
  return { ...row, user_count: _count.users };
}

/** Each sort column's type, for cursors (`shared/cursor.ts`); none is nullable. */
const DEALERSHIP_KEY_COLUMNS: Record<string, KeyColumn> = {
  name: { sql: 'd.name', type: { kind: 'text' }, nullable: false },
  position: { sql: 'd.position', type: { kind: 'int' }, nullable: false },
  created_at: { sql: 'd.created_at', type: { kind: 'timestamptz' }, nullable: false },
  id: { sql: 'd.id', type: { kind: 'uuid' }, nullable: false },
};
const DEALERSHIP_ORDER_COLUMNS = Object.fromEntries(Object.entries(DEALERSHIP_KEY_COLUMNS).map(([f, c]) => [f, c.sql]));

export async function listDealerships(
  prisma: PrismaClient,
  organizationId: string,
  args: Partial<DealershipsArgs> & { cursor?: string | null },
  cursors?: CursorCodec,
): Promise<Page<Dealership>> {
  checkCursorWithOffset(args.cursor, args.offset);
  const { limit, offset } = pageBounds(args);
  const order = orderTerms(args.order_by, DEALERSHIP_ORDER_FIELDS, DEFAULT_DEALERSHIP_ORDER);
  const terms = keyTerms(order, DEALERSHIP_KEY_COLUMNS, 'id');
  const scope: CursorScope = { list: 'dealerships', organizationId, order: terms, filters: {} };
  const after = args.cursor && cursors ? cursors.decode(args.cursor, scope) : undefined;
  const take = cursors ? limit + 1 : limit;
  const where = { organization_id: organizationId };
  // A cursor's page is one raw statement (the loader's columns), in the order prismaOrderBy gives.
  const rows: Promise<Dealership[]> = after
    ? dealershipRows(
        prisma,
        organizationId,
        Prisma.sql`AND ${keysetCondition(terms, after)}
        ORDER BY ${orderByClause(order, DEALERSHIP_ORDER_COLUMNS, 'd.id')} LIMIT ${take}`,
      )
    : prisma.dealership
        .findMany({
          where,
          orderBy: prismaOrderBy<Prisma.DealershipOrderByWithRelationInput>(order, 'id'),
          skip: offset,
          take,
          select: dealershipSelect(organizationId),
        })
        .then((found) => found.map(toDealership));
  const [found, total] = await Promise.all([rows, prisma.dealership.count({ where })]);
  return keysetPage(found, { limit, offset, total }, cursors && { codec: cursors, scope, terms, given: args.cursor });
}

/**
 * The dealerships of the per-request loader (every report's `dealership`): raw SQL, as Prisma's
 * findMany costs more CPU than the statement. The same columns and user_count as dealershipSelect.
 */
export function findDealerships(prisma: PrismaClient, organizationId: string, ids: readonly string[]): Promise<Dealership[]> {
  return dealershipRows(prisma, organizationId, Prisma.sql`AND ${keyCondition('d.id', ids)}`);
}

/** SELECT list of the loader's dealership `d` (findDealerships). */
const DEALERSHIP_COLUMNS = Prisma.raw(
  'd.id, d.name, d.created_at, d.updated_at, d.organization_id, d.entity_id, d.address, d.logo, d.illustration_img, ' +
    `d.more_info, d.siret, d.position, d.headquarter, d.brands, (${userCountSql('d')}) AS user_count`,
);

function dealershipRows(prisma: PrismaClient, organizationId: string, rest: Prisma.Sql): Promise<Dealership[]> {
  return prisma.$queryRaw<Dealership[]>`
    SELECT ${DEALERSHIP_COLUMNS}
    FROM dealerships d WHERE d.organization_id = ${organizationId}::uuid ${rest}`;
}
