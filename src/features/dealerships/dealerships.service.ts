import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import { orderTerms, prismaOrderBy, type OrderTerm } from '../../shared/order-by';
import { pageBounds, type Page } from '../../shared/pagination';
import { DEALERSHIP_ORDER_FIELDS, type Dealership, type DealershipsArgs } from './dealership.types';

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

export async function listDealerships(
  prisma: PrismaClient,
  organizationId: string,
  args: Partial<DealershipsArgs>,
): Promise<Page<Dealership>> {
  const { limit, offset } = pageBounds(args);
  const orderBy = prismaOrderBy<Prisma.DealershipOrderByWithRelationInput>(
    orderTerms(args.order_by, DEALERSHIP_ORDER_FIELDS, DEFAULT_DEALERSHIP_ORDER),
    'id',
  );
  const where = { organization_id: organizationId };
  const [rows, total] = await Promise.all([
    prisma.dealership.findMany({ where, orderBy, skip: offset, take: limit, select: dealershipSelect(organizationId) }),
    prisma.dealership.count({ where }),
  ]);
  return { items: rows.map(toDealership), limit, offset, total };
}

/**
 * The dealerships of the per-request loader (every report's `dealership`): raw SQL, as Prisma's
 * findMany costs more CPU than the statement. The same columns and user_count as dealershipSelect.
 */
export function findDealerships(prisma: PrismaClient, organizationId: string, ids: readonly string[]): Promise<Dealership[]> {
  return prisma.$queryRaw<Dealership[]>`
    SELECT d.id, d.name, d.created_at, d.updated_at, d.organization_id, d.entity_id, d.address, d.logo, d.illustration_img,
      d.more_info, d.siret, d.position, d.headquarter, d.brands,
      (SELECT count(*)::int FROM users u
        WHERE u.dealership_id = d.id AND u.is_active AND u.organization_id = ${organizationId}::uuid) AS user_count
    FROM dealerships d WHERE d.organization_id = ${organizationId}::uuid AND d.id = ANY(${ids}::uuid[])`;
}
