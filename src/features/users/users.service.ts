import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { orderTerms, prismaOrderBy, type OrderTerm } from '../../shared/order-by';
import { pageBounds, type Page, type PageRequest } from '../../shared/pagination';
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

function userOrder(raw: string | null | undefined): Prisma.UserOrderByWithRelationInput[] {
  return prismaOrderBy<Prisma.UserOrderByWithRelationInput>(orderTerms(raw, USER_ORDER_FIELDS, DEFAULT_USER_ORDER), 'id');
}

export async function listUsers(prisma: PrismaClient, organizationId: string, args: Partial<UsersArgs>): Promise<Page<User>> {
  const { limit, offset } = pageBounds(args);
  const where: Prisma.UserWhereInput = {
    AND: [
      { organization_id: organizationId },
      args.organization_id ? { organization_id: args.organization_id } : {},
      args.entity_id ? { entity_id: args.entity_id } : {},
      args.created_at__gte ? { created_at: { gte: args.created_at__gte } } : {},
      args.created_at__lte ? { created_at: { lte: args.created_at__lte } } : {},
    ],
  };
  const [items, total] = await Promise.all([
    prisma.user.findMany({ where, orderBy: userOrder(args.order_by), skip: offset, take: limit, select: USER_SELECT }),
    prisma.user.count({ where }),
  ]);
  return { items, limit, offset, total };
}

/** The columns of USER_SELECT, for the raw statements of the per-request loaders. */
const USER_COLUMNS = Prisma.raw(
  'u.id, u.name, u.is_active, u.created_at, u.organization_id, u.entity_id, u.dealership_id, u.created_by, ' +
    'u.role, u.photo, u.phone, u.position, u.email, u.last_activity, u.address',
);

/** Raw SQL on this per-request path (every page's `profile`): Prisma's findMany costs more CPU than the statement. */
export function findUsers(prisma: PrismaClient, organizationId: string, ids: readonly string[]): Promise<User[]> {
  return prisma.$queryRaw<User[]>`
    SELECT ${USER_COLUMNS} FROM users u WHERE u.organization_id = ${organizationId}::uuid AND u.id = ANY(${ids}::uuid[])`;
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
