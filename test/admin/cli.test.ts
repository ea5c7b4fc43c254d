import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/admin/cli';
import { principalOfKey } from '../support/api-keys';
import { buildDemoDataset } from '../../src/seed/dataset';
import { createMigratedDatabase, DATABASE_KINDS } from '../support/databases';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(DATABASE_KINDS)('admin CLI on %s', (kind) => {
  let env: Awaited<ReturnType<typeof createMigratedDatabase>>;
  const cli = async (...argv: string[]) => {
    const result = await runCli(argv, env.db);
    // every command prints one JSON object
    expect(JSON.parse(JSON.stringify(result.output))).toEqual(expect.any(Object));
    return result as { code: number; output: Json };
  };
  beforeAll(async () => {
    env = await createMigratedDatabase(kind);
  });
  afterAll(() => env.cleanup());

  it('creates an organization, an entity, a dealership, a user and a key that authenticates', async () => {
    const org = await cli('org:create', '--name', 'Garage Durand');
    expect(org.code).toBe(0);
    const entity = await cli('entity:create', '--org', org.output.id, '--name', 'Durand SAS', '--quota', '5');
    expect(entity.output.remote_quota).toBe(5);
    const dealership = await cli(
      'dealership:create',
      '--org',
      org.output.id,
      '--entity',
      entity.output.id,
      '--name',
      'Durand Lyon',
      '--brands',
      'Renault,Dacia',
    );
    expect(dealership.output).toMatchObject({ name: 'Durand Lyon', brands: ['Renault', 'Dacia'] });
    const user = await cli(
      'user:create',
      '--org',
      org.output.id,
      '--entity',
      entity.output.id,
      '--name',
      'Anne',
      '--dealership',
      dealership.output.id,
    );
    expect(user.output.dealership_id).toBe(dealership.output.id);
    const key = await cli('key:create', '--org', org.output.id, '--name', 'crm');
    expect(key.output.key).toMatch(/^vr_live_/);
    expect(await principalOfKey(env.db.prisma, key.output.key)).toMatchObject({ organizationId: org.output.id });

    const listed = await cli('key:list', '--org', org.output.id);
    expect(listed.output.keys).toHaveLength(1);
    expect(JSON.stringify(listed.output)).not.toContain(key.output.key);

    const revoked = await cli('key:revoke', '--id', key.output.id);
    expect(revoked.output.revoked).toBe(true);
    expect(await principalOfKey(env.db.prisma, key.output.key)).toBeNull();

    const quota = await cli('entity:set-quota', '--id', entity.output.id, '--quota', '9', '--reset');
    expect(quota.output).toMatchObject({ remote_quota: 9, remote_quota_used: 0 });
    expect((await cli('dealership:list', '--org', org.output.id)).output.dealerships).toHaveLength(1);
    expect((await cli('user:list', '--org', org.output.id)).output.users).toHaveLength(1);
  });

  it('user:create takes an e-mail address as the API does (EmailStr): normalized, or refused with its reason', async () => {
    const org = (await cli('org:create', '--name', 'Mail Check')).output;
    const entity = (await cli('entity:create', '--org', org.id, '--name', 'Mail Check SA')).output;
    const base = ['user:create', '--org', org.id, '--entity', entity.id, '--name', 'Zoé'];
    const created = await cli(...base, '--email', 'Zoé <Support@Exemple.FR>');
    expect([created.code, created.output.email]).toEqual([0, 'support@exemple.fr']);
    const refused = await cli(...base, '--email', 'zoe@garage.local');
    expect(refused).toEqual({
      code: 2,
      output: {
        error:
          '--email: value is not a valid email address: The part after the @-sign is a special-use or reserved name that cannot be used with email.',
      },
    });
    expect((await cli('user:list', '--org', org.id)).output.users).toHaveLength(1);
  });

  it('imports reports from JSON Lines, reporting bad lines by number and importing the rest', async () => {
    const org = (await cli('org:create', '--name', 'Importer')).output;
    const entity = (await cli('entity:create', '--org', org.id, '--name', 'Importer SA')).output;
    const dealership = (await cli('dealership:create', '--org', org.id, '--entity', entity.id, '--name', 'Importer Nantes')).output;
    const sample = buildDemoDataset({ reports: 5, seed: 7 }).reports;
    const lines = sample.map((r) =>
      JSON.stringify({
        ...r,
        organization_id: undefined,
        profile_id: null,
        counter_id: null,
        entity_id: undefined,
        dealership_id: dealership.id,
      }),
    );
    lines.splice(2, 0, '{not json');
    lines.push(JSON.stringify({ type: 'spaceship', data: { vehicle: {} } }));
    lines.push(JSON.stringify({ type: 'remote', data: { vehicle: {} }, dealership_id: '00000000-0000-4000-8000-000000000000' }));
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'vr-import-')), 'reports.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const result = await cli('import', '--org', org.id, '--file', file);
    expect(result.code).toBe(0);
    expect(result.output.imported).toBe(5);
    expect(result.output.bad_lines.map((b: Json) => b.line)).toEqual([3, 7, 8]);
    expect(result.output.bad_lines[1].error).toMatch(/type must be one of/);
    expect(result.output.bad_lines[2].error).toMatch(/dealership .* does not exist/);
    const stored = await env.db.prisma.report.findMany({
      where: { organization_id: org.id },
      select: { token: true, vin: true, entity_id: true },
    });
    expect(stored.map((r) => r.token).sort()).toEqual(sample.map((r) => r.token).sort());
    expect(stored.every((r) => r.entity_id === entity.id && r.vin)).toBe(true);

    // Importing the same file again changes nothing.
    const again = await cli('import', '--org', org.id, '--file', file);
    expect(again.output).toMatchObject({ imported: 0, skipped_existing: 5 });

    // Another organization cannot borrow those tokens: not as its own rows (they would be skipped
    // as duplicates), and so not as the target of a counter-inspection either.
    const other = (await cli('org:create', '--name', 'Borrower')).output;
    const otherEntity = (await cli('entity:create', '--org', other.id, '--name', 'Borrower SA')).output;
    const otherDealership = (await cli('dealership:create', '--org', other.id, '--entity', otherEntity.id, '--name', 'Borrower Lyon'))
      .output;
    const borrowed = sample[0]!;
    const counter = buildDemoDataset({ reports: 1, seed: 8 }).reports[0]!;
    const borrowing = [
      JSON.stringify({
        ...borrowed,
        organization_id: undefined,
        profile_id: null,
        counter_id: null,
        entity_id: undefined,
        dealership_id: otherDealership.id,
      }),
      JSON.stringify({
        ...counter,
        organization_id: undefined,
        profile_id: null,
        counter_id: borrowed.token,
        entity_id: undefined,
        dealership_id: otherDealership.id,
      }),
    ];
    const borrowFile = path.join(mkdtempSync(path.join(tmpdir(), 'vr-import-')), 'borrow.jsonl');
    writeFileSync(borrowFile, `${borrowing.join('\n')}\n`);
    const refused = await cli('import', '--org', other.id, '--file', borrowFile);
    expect(refused.output.imported).toBe(0);
    expect(refused.output.bad_lines).toEqual([
      { line: 1, error: `token ${borrowed.token} belongs to another organization` },
      { line: 2, error: `counter_id ${borrowed.token} is not a report of this organization` },
    ]);
  });

  it('demo:reset drops everything and seeds fresh demo data with new keys; never in production', async () => {
    const before = await cli('org:create', '--name', 'Wiped Out');
    const oldKey = (await cli('key:create', '--org', before.output.id)).output.key as string;
    expect(await cli('demo:reset')).toMatchObject({ code: 2, output: { error: 'demo:reset drops all data: add --yes' } });
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      expect(await cli('demo:reset', '--yes')).toMatchObject({
        code: 2,
        output: { error: expect.stringMatching(/refused with NODE_ENV=production/) },
      });
      // Nor `seed` (N9): demo keys have no place in production.
      expect(await cli('seed', '--reports', '1')).toMatchObject({
        code: 2,
        output: { error: expect.stringMatching(/seed is refused with NODE_ENV=production/) },
      });
    } finally {
      process.env.NODE_ENV = previous;
    }
    expect(await principalOfKey(env.db.prisma, oldKey)).not.toBeNull();

    const reset = await cli('demo:reset', '--yes', '--reports', '30');
    expect(reset.code).toBe(0);
    expect(reset.output.reports).toBe(30);
    expect(reset.output.keys).toHaveLength(2);
    expect(await principalOfKey(env.db.prisma, oldKey)).toBeNull();
    expect(await env.db.prisma.organization.count({ where: { name: 'Wiped Out' } })).toBe(0);
    for (const { key, organization_id } of reset.output.keys as { key: string; organization_id: string }[]) {
      expect(await principalOfKey(env.db.prisma, key)).toMatchObject({ organizationId: organization_id });
    }
    expect(await env.db.prisma.report.count()).toBe(30);
  });

  it('answers a usage error with a non-zero code and a JSON message', async () => {
    expect(await cli('org:frobnicate')).toMatchObject({ code: 2, output: { error: expect.stringContaining('unknown command') } });
    expect(await cli('entity:create', '--name', 'x')).toMatchObject({ code: 2, output: { error: '--org is required' } });
  });
});
