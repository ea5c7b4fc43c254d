/**
 * The docs name files that exist, and nothing in the repository names a folder of one machine.
 *
 * What counts as a path in README.md and docs/*.md (precise enough to leave URLs, routes and
 * examples alone):
 * - a token that starts with a top-level folder of the repository (`src/`, `test/`, `docs/`,
 *   `bench/`, ...) or with a layer of src/ (`platform/`, `features/`, `api/`, ...: resolved under
 *   src/ when it is not a top-level folder), made of path characters only;
 * - not preceded by a letter, digit, `/`, `.`, `-`, `:`, `@` or `~`: so `https://host/src/x`, the
 *   route `/public/api/...`, `node_modules/pkg/src/x`, `../src/x` and `@scope/pkg` are not paths;
 * - an example is not a file: a token cut by a placeholder (`<name>`, `{id}`, `*`, `$VAR`, `…`) is
 *   skipped, and so is a path under a git-ignored folder (`bench/results/`: made by a command);
 * - trailing dots are punctuation, not part of the path;
 * - a relative Markdown link target (`[text](../README.md)`) resolves from the doc's folder;
 * - in a layout section (a heading with "Layout" and the fenced block under it: one name per line,
 *   two spaces of indentation per level below the line above), every name is a path.
 * Historical logs (bench/HISTORY.md, CHANGELOG.md) name files as they were then: only the
 * machine-path rule applies to them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/project-root';

const TOP_LEVEL = readdirSync(PROJECT_ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['node_modules', '.git', 'dist', 'coverage'].includes(entry.name))
  .map((entry) => entry.name);
const SRC_LAYERS = readdirSync(path.join(PROJECT_ROOT, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'generated')
  .map((entry) => entry.name);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathToken = (roots: string[]) => new RegExp(`(?<![\\w/.:@~-])((?:${roots.map(escape).join('|')})/[\\w./@-]*)([<{*$…]?)`, 'g');
const ROOTED_PATH = pathToken(TOP_LEVEL);
const LAYER_PATH = pathToken(SRC_LAYERS);
const CODE_SPAN = /`([^`\n]+)`/g;
const MARKDOWN_LINK = /\]\(([^)\s#]+)(?:#[^)]*)?\)/g;

/** The repository's ignore rules, reduced to what docs name: folder prefixes and globs. */
function gitIgnored(): (file: string) => boolean {
  const patterns = readFileSync(path.join(PROJECT_ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => new RegExp(`^${escape(line.replace(/^\/|\/$/g, '')).replace(/\\\*/g, '[^/]*')}(/|$)`));
  return (file) => patterns.some((pattern) => pattern.test(file));
}
const ignored = gitIgnored();

function tokens(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].filter(([, , placeholder]) => !placeholder).map(([, token]) => token!.replace(/\.+$/, ''));
}

/** Rooted paths anywhere; paths relative to src/ only in code spans, where prose ("app/baseline") is not. */
export function pathsIn(markdown: string): string[] {
  const inCode = [...markdown.matchAll(CODE_SPAN)].flatMap(([, code]) => tokens(code!, LAYER_PATH));
  return [...new Set([...tokens(markdown, ROOTED_PATH), ...inCode])];
}

export function linkTargetsIn(markdown: string): string[] {
  return [...markdown.matchAll(MARKDOWN_LINK)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * The names of the fenced blocks under a "Layout" heading, each joined to its parents'. A name is
 * a line's first word when it ends with `/` or has an extension; other lines continue a description.
 */
export function layoutPathsIn(markdown: string): string[] {
  const paths: string[] = [];
  const sections = markdown.split(/^#+ /m).filter((section) => /^[^\n]*Layout/i.test(section));
  for (const section of sections) {
    const block = /```[^\n]*\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const parents: string[] = [];
    for (const line of block.split('\n')) {
      const match = /^( *)([\w.@-]+(?:\/|\.\w+))(?:\s|$)/.exec(line);
      if (!match) continue;
      const depth = match[1]!.length / 2;
      parents.length = depth;
      const name = match[2]!;
      parents.push(name.replace(/\/$/, ''));
      paths.push(parents.join('/'));
    }
  }
  return paths;
}

function exists(file: string): boolean {
  const top = file.split('/')[0]!;
  if (TOP_LEVEL.includes(top) || !SRC_LAYERS.includes(top)) return existsSync(path.join(PROJECT_ROOT, file));
  return existsSync(path.join(PROJECT_ROOT, 'src', file));
}

const DOCS = ['README.md', ...readdirSync(path.join(PROJECT_ROOT, 'docs')).map((name) => `docs/${name}`)].filter((doc) =>
  doc.endsWith('.md'),
);

/** A folder of one machine: a home, the work area of these machines, a session's temp files (use os.tmpdir()). */
const MACHINE_PATH = new RegExp(`(?<![\\w.~-])/(?:${['work', 'home', 'root'].join('|')})/[\\w.-]|(?<![\\w.~-])/${'tmp'}/[\\w.-]`);
const SCANNED_FOLDERS = [
  'docs',
  'scripts',
  'src',
  'test',
  'bench',
  'loadtest',
  'parity',
  'clients',
  'contract',
  'deploy',
  'examples',
  '.ci',
];
const SCANNED_FILES = ['README.md', 'CHANGELOG.md', 'Dockerfile', 'docker-compose.yml', 'package.json', 'codegen.yml', '.env.example'];

function filesUnder(folder: string): string[] {
  const absolute = path.join(PROJECT_ROOT, folder);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    const relative = `${folder}/${entry.name}`;
    if (ignored(relative) || relative === 'src/generated') return [];
    if (entry.isDirectory()) return filesUnder(relative);
    return /\.(ts|mjs|cjs|js|md|py|sh|yml|yaml|cfg|ini|json|graphql|sql|toml)$|^run$/.test(entry.name) ? [relative] : [];
  });
}

describe('paths named in the docs', () => {
  it('the rule: repository paths are found; URLs, routes, placeholders and other trees are not', () => {
    const text = [
      'See `src/app/main.ts`, test/docs/paths.test.ts, and docs/deploy.md.',
      'In `features/reports/report-query.ts` (under src/), not in prose: app/baseline.',
      'https://example.com/src/app/nothing.ts, /public/api/reports/, node_modules/jest/src/x.ts, ../src/y.ts',
      'prisma/migrations/<timestamp>_<name>/migration.sql, bench/results/*.json, test/${NAME}.ts, src/… and @scope/pkg',
    ].join('\n');
    expect(pathsIn(text).sort()).toEqual(
      ['docs/deploy.md', 'features/reports/report-query.ts', 'src/', 'src/app/main.ts', 'test/docs/paths.test.ts'].sort(),
    );
    expect(linkTargetsIn('[a](../README.md) [b](https://x.org/y) [c](events.md#webhooks)')).toEqual(['../README.md', 'events.md']);
    expect(
      layoutPathsIn('### Layout\n```\nsrc/\n  app/      start-up and\n            more\n    main.ts  the API\nbench/    x\n```\n'),
    ).toEqual(['src', 'src/app', 'src/app/main.ts', 'bench']);
  });

  it.each(DOCS)('%s names only files that exist', (doc) => {
    const markdown = readFileSync(path.join(PROJECT_ROOT, doc), 'utf8');
    const named = [
      ...pathsIn(markdown),
      ...layoutPathsIn(markdown),
      ...linkTargetsIn(markdown).map((target) => path.posix.normalize(path.posix.join(path.posix.dirname(doc), target))),
    ];
    const missing = [...new Set(named)].filter((file) => !ignored(file) && !exists(file));
    expect(missing).toEqual([]);
  });

  it.each(DOCS)('%s closes every code fence it opens', (doc) => {
    const fences = readFileSync(path.join(PROJECT_ROOT, doc), 'utf8').match(/^ {0,3}```/gm) ?? [];
    expect(fences.length % 2).toBe(0);
  });

  it('no file names a folder of one particular machine', () => {
    // Built from parts, so that this file does not hold what it looks for.
    expect(MACHINE_PATH.test(`see ${['', 'work', 'main', 'src'].join('/')}`)).toBe(true);
    expect(MACHINE_PATH.test(`written to ${['', 'tmp', 'tmp.x1', 'out.log'].join('/')}`)).toBe(true);
    expect(MACHINE_PATH.test('https://host/home/index.html and ~/home/x')).toBe(false);
    const files = [...SCANNED_FILES, ...SCANNED_FOLDERS.flatMap(filesUnder)].filter((file) => existsSync(path.join(PROJECT_ROOT, file)));
    expect(files.length).toBeGreaterThan(100);
    const offending = files.filter((file) => MACHINE_PATH.test(readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
    expect(offending).toEqual([]);
  });
});
