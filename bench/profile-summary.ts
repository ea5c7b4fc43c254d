/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, see bench/app-server.ts) as two tables: the
 * functions with the most self time, and the inclusive time of the frames whose name or file
 * matches a pattern (a layer: `pino`, `graphql-jit`, `JSON.parse`). Idle, program and GC samples are
 * reported apart, and percentages are of the busy samples, so that profiles of unequal length compare.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [pattern ...]
 *
 * DevTools shows the same numbers one tree at a time; this prints them for a note or a diff.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArgument, ...patterns] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [pattern ...]');
  process.exit(2);
}
const top = Number(topArgument ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

const shortUrl = (url: string) =>
  url
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/(src|bench)\//, '$1/')
    .replace(/^file:\/\//, '');
const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;

// Time per sample: the delta that follows it (V8 records the gap before the next one).
const selfTime = new Map<number, number>();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  selfTime.set(profile.samples[i]!, (selfTime.get(profile.samples[i]!) ?? 0) + dt);
  total += dt;
}
const special = new Map<string, number>();
let busy = 0;
for (const [id, time] of selfTime) {
  const name = byId.get(id)!.callFrame.functionName;
  if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') special.set(name, (special.get(name) ?? 0) + time);
  if (name !== '(idle)') busy += time;
}
const ms = (us: number) => (us / 1000).toFixed(0);
const pct = (us: number) => ((100 * us) / busy).toFixed(1);
console.log(
  `${file}: ${ms(total)} ms sampled, ${ms(busy)} ms busy; ${[...special].map(([name, t]) => `${name} ${ms(t)} ms (${pct(t)} %)`).join(', ')}`,
);

const selfByLabel = new Map<string, number>();
for (const [id, time] of selfTime) {
  const node = byId.get(id)!;
  if (node.callFrame.functionName === '(idle)') continue;
  const key = label(node);
  selfByLabel.set(key, (selfByLabel.get(key) ?? 0) + time);
}
console.log(`\n| self % of busy | self ms | function |\n|---:|---:|---|`);
for (const [key, time] of [...selfByLabel].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`| ${pct(time)} | ${ms(time)} | ${key} |`);

// Self time by where the code lives: a package, a folder of ours, Node's own modules, or V8's builtins.
const ownerOf = (url: string): string => {
  if (!url) return '(native: builtins, syscalls)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/(src|bench)\/(.*)\/[^/]+$/.exec(url) ?? /\/(src|bench)\/()[^/]+$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]!.split('/').slice(0, 2).join('/')}`;
  if (url.startsWith('node:'))
    return (
      'node:' +
      url
        .slice(5)
        .split('/')[0]!
        .replace(/^internal$/, url.slice(5).split('/').slice(0, 2).join('/'))
    );
  return url;
};
const selfByOwner = new Map<string, number>();
for (const [id, time] of selfTime) {
  const node = byId.get(id)!;
  if (node.callFrame.functionName === '(idle)') continue;
  const key = ownerOf(node.callFrame.url);
  selfByOwner.set(key, (selfByOwner.get(key) ?? 0) + time);
}
console.log(`\n| self % of busy | self ms | where |\n|---:|---:|---|`);
for (const [key, time] of [...selfByOwner].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`| ${pct(time)} | ${ms(time)} | ${key} |`);

if (patterns.length > 0) {
  console.log(`\n| inclusive % of busy | ms | frames matching |\n|---:|---:|---|`);
  for (const pattern of patterns) {
    const matches = new RegExp(pattern);
    let inclusive = 0;
    // A sample counts once when any frame on its stack matches (recursion is not counted twice).
    for (const [id, time] of selfTime) {
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
        if (matches.test(label(byId.get(at)!))) {
          inclusive += time;
          break;
        }
      }
    }
    console.log(`| ${pct(inclusive)} | ${ms(inclusive)} | ${pattern} |`);
  }
}
