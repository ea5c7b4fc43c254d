/**
 * The built-in prototypes stay as V8 made them once every module of src and every dependency they
 * load is loaded. A module that makes one of them the prototype of another object (`class X
 * extends String`, `Object.create(String.prototype)`) turns it into a dictionary, and from then
 * on every call of its methods in the process takes V8's slow path. ioredis 6 did it (its RESP3
 * `VerbatimString extends String`), and every string scan of the process, the projection of a
 * typed document (answer-plan/projection.ts) among them, ran several times slower
 * (docs/performance.md, "What limits them"; inikulin/parse5#1348 shows the same effect).
 *
 * Read with V8's own test function (`%HasFastProperties`, behind --allow-natives-syntax) in a
 * process of its own. The entry points that start a server or a command are left out; what
 * they import is in src and loaded here.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const ENTRY_POINTS = new Set(['app/main.ts', 'app/worker.ts', 'app/migrate-cli.ts', 'admin/cli.ts']);
const PROTOTYPES = ['String', 'Array', 'Object', 'Function', 'Number', 'RegExp', 'Promise', 'Map'];

const modules = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
  .map((file) => file.split(path.sep).join('/'))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !ENTRY_POINTS.has(file));

/** Which built-in prototypes are dictionaries after `prelude` runs and `files` are imported (tsx). */
function dictionaryPrototypes(prelude: string, files: readonly string[]): string[] {
  const script = `
    ${prelude}
    const fast = new Function('o', 'return %HasFastProperties(o)');
    (async () => {
      require('reflect-metadata');
      for (const file of ${JSON.stringify(files)}) await import(require('node:path').join(${JSON.stringify(ROOT)}, 'src', file));
      const slow = ${JSON.stringify(PROTOTYPES)}.filter((name) => !fast(globalThis[name].prototype));
      process.stdout.write('\\n' + JSON.stringify(slow));
      process.exit(0);
    })().catch((error) => { console.error(error); process.exit(1); });`;
  const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`the probe failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as string[];
}

describe('built-in prototypes', () => {
  it('the probe sees a subclass of String turn String.prototype into a dictionary', () => {
    expect(dictionaryPrototypes('class Verbatim extends String {}', [])).toEqual(['String']);
  });

  it(`none is a dictionary once src's ${modules.length} modules and their dependencies are loaded`, () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(dictionaryPrototypes('', modules)).toEqual([]);
  });
});
