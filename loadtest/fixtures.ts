/**
 * Prepares the database the way an operator would, through the admin CLI's commands (run in this
 * process over one connection): migrations, demo data when the database is empty, one new API key
 * per organization (two organizations), and a quota so large that leads never run out. Then reads
 * the ids the traffic needs (dealerships, reports, users, brands, client names).
 */
import { runCli } from '../src/admin/cli';
import { openDatabase, type Database } from '../src/platform/db/database';
import type { OrganizationFixture } from './traffic';

const LOAD_TEST_QUOTA = 1_000_000_000;

async function admin<T>(db: Database, argv: string[]): Promise<T> {
  const { code, output } = await runCli(argv, db);
  if (code !== 0) throw new Error(`admin ${argv[0]} failed: ${JSON.stringify(output)}`);
  return output as T;
}

export interface PreparedDatabase {
  organizations: OrganizationFixture[];
  organizationIds: string[];
  /** entities of those organizations; their quota period was reset, so `remote_quota_used` counts this run's leads */
  entityIds: string[];
  /** API key ids (the rate limiter's keys in Redis) */
  apiKeyIds: string[];
}

export async function prepareDatabase(url: string, reports: number, log: (line: string) => void): Promise<PreparedDatabase> {
  const db = await openDatabase({ url, poolMax: 2 });
  try {
    const { organizations: existing } = await admin<{ organizations: { id: string; name: string }[] }>(db, ['org:list']);
    if (existing.length === 0) {
      log(`  seeding ${reports} reports (admin seed)`);
      await admin(db, ['seed', '--reports', String(reports)]);
    } else log(`  the database already has ${existing.length} organizations: not seeding`);
    const { organizations } = await admin<{ organizations: { id: string; name: string }[] }>(db, ['org:list']);
    if (organizations.length < 2) throw new Error('the load test needs two organizations');
    const chosen = organizations.slice(0, 2);

    const fixtures: OrganizationFixture[] = [];
    const entityIds: string[] = [];
    const apiKeyIds: string[] = [];
    for (const org of chosen) {
      const key = await admin<{ id: string; key: string }>(db, ['key:create', '--org', org.id, '--name', 'load test', '--env', 'test']);
      apiKeyIds.push(key.id);
      const { entities } = await admin<{ entities: { id: string }[] }>(db, ['entity:list', '--org', org.id]);
      for (const entity of entities) {
        // --reset: a new period with nothing used, so `used` afterwards is exactly what the run took.
        await admin(db, ['entity:set-quota', '--id', entity.id, '--quota', String(LOAD_TEST_QUOTA), '--reset']);
        entityIds.push(entity.id);
      }
      const { dealerships } = await admin<{ dealerships: { id: string }[] }>(db, ['dealership:list', '--org', org.id]);
      const reportRows = await db.prisma.report.findMany({
        where: { organization_id: org.id },
        select: { token: true, brand: true, client_name: true },
        orderBy: { created_at: 'desc' },
        take: 200,
      });
      const users = await db.prisma.user.findMany({ where: { organization_id: org.id }, select: { id: true }, take: 50 });
      const brands = [...new Set(reportRows.map((r) => r.brand).filter((b): b is string => !!b))];
      const searchTerms = [
        ...new Set(reportRows.map((r) => r.client_name?.split(' ').pop()?.toLowerCase()).filter((n): n is string => !!n)),
      ];
      if (dealerships.length === 0 || reportRows.length === 0 || users.length === 0) {
        throw new Error(`organization ${org.name} needs dealerships, reports and users`);
      }
      fixtures.push({
        name: org.name,
        apiKey: key.key,
        dealershipIds: dealerships.map((d) => d.id),
        reportTokens: reportRows.map((r) => r.token),
        userIds: users.map((u) => u.id),
        brands: brands.length > 0 ? brands : ['renault'],
        searchTerms: searchTerms.length > 0 ? searchTerms.slice(0, 20) : ['martin'],
      });
    }
    return { organizations: fixtures, organizationIds: chosen.map((o) => o.id), entityIds, apiKeyIds };
  } finally {
    await db.close();
  }
}
