import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/project-root';

const OUTPUT = path.join(PROJECT_ROOT, 'examples', 'graphql-operations.ts');

/** The standard CLI, as `npm run codegen` runs it, in check mode (exit 1 on a stale output). */
function check() {
  const cli = path.join(PROJECT_ROOT, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js');
  const result = spawnSync(process.execPath, [cli, '--config', 'codegen.yml', '--check'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('generated client code (npm run codegen)', () => {
  jest.setTimeout(60_000);

  it('is up to date with schema.graphql and the operations (run `npm run codegen` when this fails)', () => {
    const result = check();
    expect(result.output).not.toContain('stale');
    expect(result.status).toBe(0);
  });

  it('the check notices a stale file', () => {
    const backup = `${OUTPUT}.bak`;
    copyFileSync(OUTPUT, backup);
    try {
      writeFileSync(OUTPUT, `${readFileSync(OUTPUT, 'utf8')}\n// edited by hand\n`);
      const result = check();
      expect(result.status).toBe(1);
      expect(result.output).toMatch(/stale files were detected:\s+- examples\/graphql-operations\.ts/);
    } finally {
      copyFileSync(backup, OUTPUT);
      rmSync(backup);
    }
  });

  it('examples/rest-api.d.ts is what openapi-typescript makes of openapi.json', () => {
    const cli = path.join(PROJECT_ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    const result = spawnSync(process.execPath, [cli, 'openapi.json', '--output', 'examples/rest-api.d.ts', '--check'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toMatchObject({ status: 0 });
  });
});
