/**
 * Produces migration SQL offline with Prisma 6.19.3's WASM schema engine (installed as the
 * `prisma6` alias): Prisma 7 has no offline migrate, see README "Migrations".
 * Nothing here touches a database: the engine talks to a stub adapter that only answers the
 * version probe.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/platform/project-root';
import { applyDerivedColumns } from '../src/platform/db/migrations/derived-columns';

const PRISMA6_CONFIG = `
import { defineConfig } from 'prisma6/config';
const result = (rows) => ({ columnNames: ['exists', 'version', 'numeric_version'], columnTypes: [5, 7, 0], rows });
const stubAdapter = {
  provider: 'postgres',
  adapterName: 'vr-offline-diff-stub',
  async connect() {
    return {
      provider: 'postgres',
      adapterName: 'vr-offline-diff-stub',
      async queryRaw() { return result([[true, 'PostgreSQL 15.0', 150000]]); },
      async executeRaw() { return 0; },
      async executeScript() { throw new Error('the offline diff never runs SQL'); },
      async startTransaction() { throw new Error('the offline diff never runs SQL'); },
      async dispose() {},
      getConnectionInfo() { return { schemaName: 'public', supportsRelationJoins: true }; },
    };
  },
};
export default defineConfig({ engine: 'js', experimental: { adapter: true }, adapter: async () => stubAdapter });
`;

/** Prisma 6 insists on a datasource url; Prisma 7 forbids it. */
function withUrl(schema: string): string {
  return schema.replace(/(datasource\s+\w+\s*\{)/, `$1\n  url = "postgresql://offline-diff-only"`);
}

/** Returns the SQL taking a database from `fromSchema` (or empty) to `toSchema`, derived columns applied. */
export function diffSchemas(toSchema: string, fromSchema?: string): string {
  // Inside the project so that the config's `import 'prisma6/config'` resolves.
  const cacheDir = path.join(PROJECT_ROOT, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const dir = mkdtempSync(path.join(cacheDir, 'vr-diff-'));
  try {
    writeFileSync(path.join(dir, 'prisma.config.ts'), PRISMA6_CONFIG);
    writeFileSync(path.join(dir, 'to.prisma'), withUrl(toSchema));
    const from = ['--from-empty'];
    if (fromSchema !== undefined) {
      writeFileSync(path.join(dir, 'from.prisma'), withUrl(fromSchema));
      from.splice(0, 1, '--from-schema-datamodel', 'from.prisma');
    }
    const cli = path.join(path.dirname(require.resolve('prisma6/package.json')), 'build', 'index.js');
    const run = spawnSync(
      process.execPath,
      [cli, 'migrate', 'diff', '--config', 'prisma.config.ts', ...from, '--to-schema-datamodel', 'to.prisma', '--script'],
      {
        cwd: dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          // Checked for existence only; never executed by `migrate diff` with the JS engine.
          PRISMA_QUERY_ENGINE_LIBRARY: process.env.PRISMA_QUERY_ENGINE_LIBRARY ?? process.execPath,
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
          CHECKPOINT_DISABLE: '1',
        },
      },
    );
    if (run.status !== 0) throw new Error(`prisma migrate diff failed:\n${run.stderr}\n${run.stdout}`);
    return applyDerivedColumns(run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
