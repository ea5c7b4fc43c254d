import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/project-root';

const OUTPUT = path.join(PROJECT_ROOT, 'examples', 'graphql-operations.ts');

function check() {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/codegen.ts', '--check'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
}

describe('GraphQL Code Generator output (codegen.yml)', () => {
  jest.setTimeout(60_000);

  it('is up to date with schema.graphql and the operations (run `npm run codegen` when this fails)', () => {
    const result = check();
    expect(result.stderr).not.toContain('stale');
    expect(result.status).toBe(0);
  });

  it('the check notices a stale file', () => {
    const backup = `${OUTPUT}.bak`;
    copyFileSync(OUTPUT, backup);
    try {
      writeFileSync(OUTPUT, `${readFileSync(OUTPUT, 'utf8')}\n// edited by hand\n`);
      const result = check();
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('stale GraphQL codegen output: examples/graphql-operations.ts');
    } finally {
      copyFileSync(backup, OUTPUT);
      rmSync(backup);
    }
  });
});
