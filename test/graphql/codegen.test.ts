import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/project-root';

/** Every output of codegen.yml: the example client's operations, the seed's report document types. */
const OUTPUTS = ['examples/graphql-operations.ts', 'src/seed/report-document.generated.ts'];

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

describe('generated code (npm run codegen)', () => {
  jest.setTimeout(60_000);

  it('is up to date with schema.graphql and the operations (run `npm run codegen` when this fails)', () => {
    const result = check();
    expect(result.output).not.toContain('stale');
    expect(result.status).toBe(0);
  });

  it.each(OUTPUTS)('the check notices a stale %s', (output) => {
    const file = path.join(PROJECT_ROOT, output);
    const backup = `${file}.bak`;
    copyFileSync(file, backup);
    try {
      writeFileSync(file, `${readFileSync(file, 'utf8')}\n// edited by hand\n`);
      const result = check();
      expect(result.status).toBe(1);
      expect(result.output).toMatch(new RegExp(`stale files were detected:\\s+- ${output.replace(/[./]/g, '\\$&')}`));
    } finally {
      copyFileSync(backup, file);
      rmSync(backup);
    }
  });

  it('the seed types hold only the report document: the types ReportData, ReportState and RealCosts reach', () => {
    const generated = readFileSync(path.join(PROJECT_ROOT, 'src/seed/report-document.generated.ts'), 'utf8');
    const types = [...generated.matchAll(/^export type (\w+) =/gm)].map((m) => m[1]);
    expect(types).toEqual(expect.arrayContaining(['ReportData', 'Vehicle', 'ReportMetadata', 'ReportState', 'StateEntry', 'RealCosts']));
    expect(types).not.toEqual(expect.arrayContaining(['Query']));
    expect(types).not.toContain('Report');
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
