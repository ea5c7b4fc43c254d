/**
 * Child process: the real application (src/server/app.ts) on PostgreSQL, on an ephemeral port.
 * A process of its own so that its RSS is measured alone. Tells the parent its port over IPC.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/database';
import { createApp } from '../src/server/app';

async function main(): Promise<void> {
  const config = { ...loadConfig(process.env), seedDemoData: false };
  const db = await openDatabase({ url: process.env.DATABASE_URL!, poolMax: config.pgPoolMax });
  const app = await createApp({ db, config });
  const server = createServer(app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
