/**
 * The real application on a fixed port for profiling by hand:
 *   DATABASE_URL=... node --import tsx --cpu-prof --cpu-prof-dir /tmp/prof bench/profile-server.ts
 * then load it (autocannon), then Ctrl-C: the profile is written on exit (open it in Chrome DevTools).
 * Prints an API key of the organization with the most reports.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import { issueApiKey } from '../src/auth/api-keys';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/database';
import { createApp } from '../src/server/app';

async function main(): Promise<void> {
  const base = loadConfig(process.env);
  const config = {
    ...base,
    seedDemoData: false,
    rateLimits: { ...base.rateLimits, requestsPerMinute: 1e9, leadsPerMinute: 1e9 },
  };
  const db = await openDatabase({ url: process.env.DATABASE_URL!, poolMax: config.pgPoolMax });
  const [largest] = await db.prisma.$queryRaw<{ organization_id: string }[]>`
    SELECT organization_id FROM reports GROUP BY organization_id ORDER BY count(*) DESC LIMIT 1`;
  const key = (await issueApiKey(db.prisma, largest!.organization_id, 'profile', 'bench')).key;
  const app = await createApp({ db, config });
  const server = createServer(app);
  server.listen(Number(process.env.PORT ?? 4555), '127.0.0.1', () => console.log(`ready ${key}`));
  const stop = () => process.exit(0);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
