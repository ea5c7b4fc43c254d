/**
 * Writes the demo dataset into an empty database and issues one API key per demo organization.
 */
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import { issueApiKey, type IssuedApiKey } from '../features/auth/api-keys';
import { buildDemoDataset, type DemoDataset } from './dataset';

const BATCH_SIZE = 250;

export interface SeedResult {
  organizations: { id: string; name: string }[];
  reports: number;
  keys: IssuedApiKey[];
}

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH_SIZE) await write(rows.slice(i, i + BATCH_SIZE));
}

export async function isDatabaseEmpty(prisma: PrismaClient): Promise<boolean> {
  return (await prisma.organization.count()) === 0;
}

export async function seedDatabase(prisma: PrismaClient, dataset: DemoDataset = buildDemoDataset()): Promise<SeedResult> {
  await prisma.organization.createMany({ data: dataset.organizations });
  await prisma.entity.createMany({ data: dataset.entities });
  await prisma.dealership.createMany({ data: dataset.dealerships as Prisma.DealershipCreateManyInput[] });
  await prisma.user.createMany({ data: dataset.users as Prisma.UserCreateManyInput[] });
  // A counter-inspection references its original report: originals first.
  const reports = [...dataset.reports].sort((a, b) => Number(a.counter_id !== null) - Number(b.counter_id !== null));
  await inBatches(reports, (batch) => prisma.report.createMany({ data: batch as Prisma.ReportCreateManyInput[] }));
  const keys: IssuedApiKey[] = [];
  for (const organization of dataset.organizations) {
    keys.push(await issueApiKey(prisma, organization.id, 'demo key', 'demo'));
  }
  return {
    organizations: dataset.organizations.map(({ id, name }) => ({ id, name })),
    reports: reports.length,
    keys,
  };
}
