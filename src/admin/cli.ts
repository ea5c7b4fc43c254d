#!/usr/bin/env node
/**
 * Admin CLI: `npm run admin -- <command> [--options]`. Every command prints one JSON object.
 * Uses the same configuration as the service (DATABASE_URL or DATA_DIR) and applies pending
 * migrations first.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { issueApiKey, revokeApiKey } from '../features/auth/api-keys';
import { databaseOptionsFrom, loadConfig } from '../app/config';
import { openDatabase, type Database } from '../platform/db/database';
import { validateEmailStr } from '../shared/email/email-str';
import { applyMigrations } from '../platform/db/migrations/apply';
import type { PrismaClient } from '../generated/prisma/client';
import { buildDemoDataset } from '../seed/dataset';
import { isDatabaseEmpty, seedDatabase } from '../seed/seed-database';
import {
  createWebhookEndpoint,
  disableWebhookEndpoint,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
} from '../features/webhooks/webhooks.service';
import { importReports } from './import-reports';

type Options = Record<string, string | boolean | undefined>;
type Command = (prisma: PrismaClient, options: Options) => Promise<unknown>;

class UsageError extends Error {}

/** A user's e-mail judged as the API judges a lead's (Pydantic's EmailStr), stored normalized. */
function emailOption(value: string): string {
  const checked = validateEmailStr(value);
  if (!checked.ok) throw new UsageError(`--email: value is not a valid email address: ${checked.reason}`);
  return checked.normalized;
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optionalInt(options: Options, name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return parsed;
}

const text = (options: Options, name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);

/** What a seeding command prints: the counts and the demo keys (shown only now). */
const seededSummary = ({ organizations, reports, keys }: Awaited<ReturnType<typeof seedDatabase>>) => ({
  organizations,
  reports,
  keys: keys.map((k) => ({ organization_id: k.organization_id, key: k.key })),
});

const list = (value: unknown) => (typeof value === 'string' && value !== '' ? value.split(',').map((s) => s.trim()) : []);

export const COMMANDS: Record<string, { usage: string; run: Command }> = {
  'org:create': {
    usage: '--name NAME',
    run: (prisma, o) => prisma.organization.create({ data: { name: required(o, 'name') } }),
  },
  'org:list': {
    usage: '',
    run: async (prisma) => ({ organizations: await prisma.organization.findMany({ orderBy: { created_at: 'asc' } }) }),
  },
  'entity:create': {
    usage: '--org ID --name NAME [--quota N] [--period-months N]',
    run: (prisma, o) =>
      prisma.entity.create({
        data: {
          organization_id: required(o, 'org'),
          name: required(o, 'name'),
          remote_quota: optionalInt(o, 'quota'),
          quota_period_months: optionalInt(o, 'period-months'),
        },
      }),
  },
  'entity:list': {
    usage: '[--org ID]',
    run: async (prisma, o) => ({
      entities: await prisma.entity.findMany({
        where: typeof o.org === 'string' ? { organization_id: o.org } : {},
        orderBy: { created_at: 'asc' },
      }),
    }),
  },
  'entity:set-quota': {
    usage: '--id ID --quota N [--reset] (--reset starts a new period with nothing used)',
    run: (prisma, o) =>
      prisma.entity.update({
        where: { id: required(o, 'id') },
        data: {
          remote_quota: optionalInt(o, 'quota') ?? Number(required(o, 'quota')),
          ...(o.reset ? { remote_quota_used: 0, quota_period_start: new Date() } : {}),
        },
      }),
  },
  'dealership:create': {
    usage: '--org ID --entity ID --name NAME [--position N] [--brands A,B] [--headquarter] [--siret S]',
    run: (prisma, o) =>
      prisma.dealership.create({
        data: {
          organization_id: required(o, 'org'),
          entity_id: required(o, 'entity'),
          name: required(o, 'name'),
          position: optionalInt(o, 'position'),
          brands: list(o.brands),
          headquarter: o.headquarter === true,
          siret: text(o, 'siret'),
        },
      }),
  },
  'dealership:list': {
    usage: '--org ID',
    run: async (prisma, o) => ({
      dealerships: await prisma.dealership.findMany({
        where: { organization_id: required(o, 'org') },
        orderBy: [{ position: 'asc' }, { name: 'asc' }],
      }),
    }),
  },
  'user:create': {
    usage: '--org ID --entity ID --name NAME [--email E] [--role R] [--dealership ID] [--phone P]',
    run: (prisma, o) =>
      prisma.user.create({
        data: {
          organization_id: required(o, 'org'),
          entity_id: required(o, 'entity'),
          name: required(o, 'name'),
          email: typeof o.email === 'string' ? emailOption(o.email) : undefined,
          role: text(o, 'role'),
          phone: text(o, 'phone'),
          dealership_id: text(o, 'dealership'),
          created_by: 'admin-cli',
        },
      }),
  },
  'user:list': {
    usage: '--org ID',
    run: async (prisma, o) => ({
      users: await prisma.user.findMany({ where: { organization_id: required(o, 'org') }, orderBy: { created_at: 'desc' } }),
    }),
  },
  'key:create': {
    usage: '--org ID [--name NAME] [--env ENV] (ENV: live, test…; the key is printed once, only now)',
    run: async (prisma, o) => {
      const org = await prisma.organization.findUnique({ where: { id: required(o, 'org') } });
      if (!org) throw new UsageError('organization not found');
      return issueApiKey(prisma, org.id, text(o, 'name') ?? 'api key', text(o, 'env') ?? 'live');
    },
  },
  'key:list': {
    usage: '--org ID',
    run: async (prisma, o) => ({
      keys: await prisma.apiKey.findMany({
        where: { organization_id: required(o, 'org') },
        select: { id: true, name: true, prefix: true, created_at: true, last_used_at: true, revoked_at: true },
        orderBy: { created_at: 'asc' },
      }),
    }),
  },
  'key:revoke': {
    usage: '--id ID',
    run: async (prisma, o) => ({ id: required(o, 'id'), revoked: await revokeApiKey(prisma, required(o, 'id')) }),
  },
  'webhook:create': {
    usage: '--org ID --url URL [--types T1,T2] [--after CURSOR] (the signing secret is printed once, only now)',
    run: (prisma, o) =>
      createWebhookEndpoint(
        prisma,
        required(o, 'org'),
        {
          url: required(o, 'url'),
          types: text(o, 'types') ?? null,
          after: text(o, 'after') ?? null,
        },
        { allowPrivate: loadConfig().webhooks.allowPrivateAddresses },
      ),
  },
  'webhook:list': {
    usage: '--org ID',
    run: async (prisma, o) => ({ endpoints: await listWebhookEndpoints(prisma, required(o, 'org')) }),
  },
  'webhook:rotate': {
    usage: '--org ID --id ID (prints the new secret once)',
    run: (prisma, o) => rotateWebhookSecret(prisma, required(o, 'org'), required(o, 'id')),
  },
  'webhook:disable': {
    usage: '--org ID --id ID',
    run: (prisma, o) => disableWebhookEndpoint(prisma, required(o, 'org'), required(o, 'id')),
  },
  'webhook:redeliver': {
    usage: '--org ID --id ID [--after CURSOR] (from CURSOR, else from the oldest dead letter; re-enables)',
    run: (prisma, o) => redeliverWebhook(prisma, required(o, 'org'), required(o, 'id'), text(o, 'after') ?? null),
  },
  import: {
    usage: '--org ID --file FILE (JSON Lines, one full report per line)',
    run: (prisma, o) => importReports(prisma, required(o, 'org'), required(o, 'file')),
  },
  seed: {
    usage: '[--reports N] [--seed N] (only into an empty database)',
    run: async (prisma, o) => {
      if (loadConfig().nodeEnv === 'production')
        throw new UsageError('seed is refused with NODE_ENV=production: demo keys would be created');
      if (!(await isDatabaseEmpty(prisma))) throw new UsageError('the database already has data; seed only fills an empty one');
      return seededSummary(
        await seedDatabase(prisma, buildDemoDataset({ reports: optionalInt(o, 'reports'), seed: optionalInt(o, 'seed') })),
      );
    },
  },
  'demo:reset': {
    usage: '--yes [--reports N] (drops every row of every table, then seeds fresh demo data; refused with NODE_ENV=production)',
    run: async (prisma, o) => {
      if (loadConfig().nodeEnv === 'production') throw new UsageError('demo:reset is refused with NODE_ENV=production');
      if (o.yes !== true) throw new UsageError('demo:reset drops all data: add --yes');
      const tables = await prisma.$queryRaw<{ name: string }[]>`
        SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`;
      await prisma.$executeRawUnsafe(`TRUNCATE ${tables.map((t) => t.name).join(', ')} CASCADE`);
      return seededSummary(await seedDatabase(prisma, buildDemoDataset({ reports: optionalInt(o, 'reports') })));
    },
  },
  migrate: {
    usage: '(applies pending migrations; every command does this first)',
    run: async () => ({ ok: true }),
  },
};

/** Options as the usage line declares them: `--name NAME` takes a value, `--reset` does not. */
function optionsOf(usageLine: string): Record<string, { type: 'string' | 'boolean' }> {
  return Object.fromEntries(
    [...usageLine.matchAll(/--([\w-]+)( [A-Z][\w|.,]*)?/g)].map((m) => [m[1]!, { type: m[2] ? 'string' : 'boolean' }]),
  );
}

export async function runCli(argv: string[], db?: Database): Promise<{ code: number; output: unknown }> {
  const [commandName, ...rest] = argv;
  const command = commandName ? COMMANDS[commandName] : undefined;
  if (!command)
    return {
      code: 2,
      output: {
        error: `unknown command ${commandName ?? ''}`.trim(),
        usage: Object.entries(COMMANDS).map(([name, c]) => `${name} ${c.usage}`.trim()),
      },
    };
  let options: Options;
  try {
    options = parseArgs({ args: rest, strict: true, options: optionsOf(command.usage) }).values as Options;
  } catch (error) {
    return { code: 2, output: { error: (error as Error).message } };
  }
  const config = loadConfig();
  const database = db ?? (await openDatabase(databaseOptionsFrom(config, { poolMax: 2 })));
  try {
    const migrations = await database.withSession((session) => applyMigrations(session));
    const output = await command.run(database.prisma, options);
    return { code: 0, output: commandName === 'migrate' ? migrations : output };
  } catch (error) {
    return { code: error instanceof UsageError ? 2 : 1, output: { error: (error as Error).message } };
  } finally {
    if (!db) await database.close();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then(({ code, output }) => {
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    process.exit(code);
  });
}
