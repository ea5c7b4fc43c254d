// Runs `prisma generate` offline. Prisma 7's CLI insists on a schema-engine binary being present
// even though `generate` never executes it; point it at node itself when nothing else is set, so a
// fresh clone needs no download (see README, "Offline Prisma").
// The CLI is called by path: the project also carries Prisma 6 (as `prisma6`, for `db:diff`), and
// both packages claim the `prisma` bin name.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const cli = path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'index.js');
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
const result = spawnSync(process.execPath, [cli, 'generate', ...process.argv.slice(2)], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
