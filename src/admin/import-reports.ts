/**
 * Imports reports from JSON Lines (one full report per line, in the spec's shape, section 2.3):
 * how an existing customer moves its data in. Each line is validated; bad lines are reported by
 * number and skipped; good ones are written in batches.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { ReportType } from '../generated/prisma/enums';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BATCH_SIZE = 500;
const REPORT_TYPES = new Set<string>(Object.values(ReportType));

export interface ImportResult {
  imported: number;
  skipped_existing: number;
  bad_lines: { line: number; error: string }[];
}

interface ImportContext {
  organizationId: string;
  /** dealership id → its entity id, for the organization's dealerships */
  dealershipEntity: Map<string, string>;
  users: Set<string>;
  defaultEntityId: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalUuid(row: Record<string, unknown>, field: string): string | null {
  const value = row[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !UUID.test(value)) throw new Error(`${field} must be a UUID`);
  return value.toLowerCase();
}

function optionalDate(row: Record<string, unknown>, field: string): Date | undefined {
  const value = row[field];
  if (value === undefined || value === null) return undefined;
  const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw new Error(`${field} must be an ISO 8601 date-time`);
  return date;
}

/** Validates one parsed line and maps it to a row, or throws with the reason. */
export function reportRowFromLine(row: unknown, context: ImportContext): Prisma.ReportCreateManyInput {
  if (!isObject(row)) throw new Error('a line must be a JSON object');
  if (typeof row.type !== 'string' || !REPORT_TYPES.has(row.type)) {
    throw new Error(`type must be one of ${[...REPORT_TYPES].join(', ')}`);
  }
  if (!isObject(row.data) || !isObject(row.data.vehicle)) throw new Error('data.vehicle must be an object');
  for (const field of ['state', 'real_costs']) {
    if (row[field] !== undefined && row[field] !== null && !isObject(row[field])) throw new Error(`${field} must be an object`);
  }
  if (row.valid !== undefined && typeof row.valid !== 'boolean') throw new Error('valid must be a boolean');
  const organizationId = optionalUuid(row, 'organization_id');
  if (organizationId && organizationId !== context.organizationId) {
    throw new Error('organization_id is not the organization being imported into');
  }
  const dealershipId = optionalUuid(row, 'dealership_id');
  if (dealershipId && !context.dealershipEntity.has(dealershipId)) {
    throw new Error(`dealership ${dealershipId} does not exist in this organization`);
  }
  const profileId = optionalUuid(row, 'profile_id');
  if (profileId && !context.users.has(profileId)) throw new Error(`user ${profileId} does not exist in this organization`);
  const createdAt = optionalDate(row, 'created_at');
  return {
    token: optionalUuid(row, 'token') ?? undefined,
    created_at: createdAt,
    updated_at: optionalDate(row, 'updated_at') ?? createdAt,
    organization_id: context.organizationId,
    entity_id: (dealershipId && context.dealershipEntity.get(dealershipId)) || context.defaultEntityId,
    dealership_id: dealershipId,
    profile_id: profileId,
    counter_id: optionalUuid(row, 'counter_id'),
    type: row.type as ReportType,
    valid: (row.valid as boolean | undefined) ?? true,
    data: row.data as Prisma.InputJsonObject,
    state: (row.state as Prisma.InputJsonObject | undefined) ?? {},
    real_costs: (row.real_costs as Prisma.InputJsonObject | undefined) ?? undefined,
  };
}

export async function importReports(prisma: PrismaClient, organizationId: string, file: string): Promise<ImportResult> {
  const organization = await prisma.organization.findUnique({
    where: { id: organizationId },
    include: {
      dealerships: { select: { id: true, entity_id: true } },
      users: { select: { id: true } },
      entities: { select: { id: true }, orderBy: { created_at: 'asc' }, take: 1 },
    },
  });
  if (!organization) throw new Error(`organization ${organizationId} not found`);
  const defaultEntityId = organization.entities[0]?.id;
  if (!defaultEntityId) throw new Error('the organization has no entity: create one first');
  const context: ImportContext = {
    organizationId,
    dealershipEntity: new Map(organization.dealerships.map((d) => [d.id, d.entity_id])),
    users: new Set(organization.users.map((u) => u.id)),
    defaultEntityId,
  };

  const result: ImportResult = { imported: 0, skipped_existing: 0, bad_lines: [] };
  let batch: Prisma.ReportCreateManyInput[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    // Re-running an import is safe: reports whose token already exists are left as they are.
    const { count } = await prisma.report.createMany({ data: batch, skipDuplicates: true });
    result.imported += count;
    result.skipped_existing += batch.length - count;
    batch = [];
  };
  // Counter-inspections may only point at reports already in the database or earlier in the file.
  const knownTokens = new Set<string>();
  let lineNumber = 0;
  for await (const line of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    try {
      const row = reportRowFromLine(JSON.parse(line), context);
      if (row.counter_id && !knownTokens.has(row.counter_id)) {
        const original = await prisma.report.findFirst({
          where: { token: row.counter_id, organization_id: organizationId },
          select: { token: true },
        });
        if (!original) throw new Error(`counter_id ${row.counter_id} is not a report of this organization`);
      }
      if (row.token) {
        // A token already taken by another organization would be skipped as a duplicate, and must
        // not become a counter-inspection target for this one either.
        const existing = await prisma.report.findUnique({ where: { token: row.token }, select: { organization_id: true } });
        if (existing && existing.organization_id !== organizationId) throw new Error(`token ${row.token} belongs to another organization`);
        knownTokens.add(row.token);
      }
      batch.push(row);
    } catch (error) {
      result.bad_lines.push({ line: lineNumber, error: (error as Error).message });
    }
    if (batch.length >= BATCH_SIZE) await flush();
  }
  await flush();
  return result;
}
