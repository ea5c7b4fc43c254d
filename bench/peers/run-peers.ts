/**
 * `npm run bench -- --peers`: our app, the bare baseline and PostGraphile 5 on the same database,
 * for the three scenarios of bench/peers/scenarios.ts. Each system must first return the same
 * data; then the systems take turns over several rounds (the order rotates each round, so that
 * none always runs first or right after a slow one on shared cores), and each figure is the median
 * of its rounds. CPU per request is counted in the server process and in the PostgreSQL backends
 * serving it: where the work is done matters as much as the req/s on a shared machine.
 */
import { checkOnce, measure, type ChildServer, type Measurement, type MeasureOptions } from '../measure';
import { median } from '../support';
import { backendCpuWindow } from './pg-backends';
import { startPostGraphile } from './postgraphile';
import { buildPeerScenarios, type Answer, type PeerContext, type PeerScenario, type PeerVariant, type System } from './scenarios';

export interface PeerOptions extends MeasureOptions {
  rounds: number;
  databaseUrl: string;
  /** only the scenarios whose name matches (`--only`) */
  only?: RegExp;
}

export interface PeerRow {
  system: System;
  via: string;
  /** the medians over the rounds */
  median: Measurement;
  rounds: Measurement[];
}

export interface PeerResult {
  scenario: string;
  rows: PeerRow[];
}

/** Fetches every variant once and fails unless all return the same tokens, total and values. */
async function checkSameData(scenario: PeerScenario, servers: Record<System, ChildServer>): Promise<void> {
  let reference: { variant: PeerVariant; answer: Answer } | undefined;
  for (const variant of scenario.variants) {
    const answer = variant.answer(JSON.parse(await checkOnce(servers[variant.system], variant.request)));
    if (answer.tokens.length === 0) throw new Error(`${scenario.name}: ${variant.system} (${variant.via}) returned no report`);
    if (!reference) {
      reference = { variant, answer };
      continue;
    }
    const differences = compare(reference.answer, answer);
    if (differences) {
      const label = (v: PeerVariant) => `${v.system} (${v.via})`;
      throw new Error(`${scenario.name}: ${label(variant)} does not return the data of ${label(reference.variant)}: ${differences}`);
    }
  }
}

function compare(expected: Answer, actual: Answer): string | undefined {
  if (expected.total !== actual.total) return `total ${actual.total} instead of ${expected.total}`;
  if (expected.tokens.length !== actual.tokens.length) return `${actual.tokens.length} reports instead of ${expected.tokens.length}`;
  const token = expected.tokens.findIndex((t, i) => t !== actual.tokens[i]);
  if (token >= 0) return `report #${token + 1} is ${actual.tokens[token]} instead of ${expected.tokens[token]}`;
  const value = expected.values.findIndex((v, i) => JSON.stringify(v) !== JSON.stringify(actual.values[i]));
  if (value >= 0) {
    return `values of report #${value + 1} differ: ${JSON.stringify(actual.values[value]).slice(0, 400)} instead of ${JSON.stringify(expected.values[value]).slice(0, 400)}`;
  }
  return undefined;
}

function medianOf(rounds: Measurement[]): Measurement {
  const of = (pick: (m: Measurement) => number) => median(rounds.map(pick));
  return {
    requests: of((m) => m.requests),
    reqPerSec: of((m) => m.reqPerSec),
    p50: of((m) => m.p50),
    p95: of((m) => m.p95),
    p99: of((m) => m.p99),
    errors: rounds.reduce((sum, m) => sum + m.errors, 0),
    peakRssMb: Math.max(...rounds.map((m) => m.peakRssMb)),
    cpuMsPerRequest: of((m) => m.cpuMsPerRequest),
    pgCpuMsPerRequest: of((m) => m.pgCpuMsPerRequest ?? NaN),
  };
}

export function peerTable(result: PeerResult): string {
  const reference = result.rows.find((r) => r.system === 'postgraphile')!.median;
  const fmt = (n: number | undefined, digits = 1) => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '-');
  const head = [
    'system',
    'req/s',
    'p50 ms',
    'p95 ms',
    'server CPU ms/req',
    'PG CPU ms/req',
    'req/s ÷ PGL',
    'server CPU ÷ PGL',
    'PG CPU ÷ PGL',
    'total CPU ÷ PGL',
    'errors',
  ];
  const total = (m: Measurement) => m.cpuMsPerRequest + (m.pgCpuMsPerRequest ?? NaN);
  const lines = result.rows.map(({ system, via, median: m }) => [
    `${system} (${via})`,
    fmt(m.reqPerSec, 0),
    fmt(m.p50),
    fmt(m.p95),
    fmt(m.cpuMsPerRequest, 2),
    fmt(m.pgCpuMsPerRequest, 2),
    fmt(m.reqPerSec / reference.reqPerSec, 2),
    fmt(m.cpuMsPerRequest / reference.cpuMsPerRequest, 2),
    fmt(m.pgCpuMsPerRequest! / reference.pgCpuMsPerRequest!, 2),
    fmt(total(m) / total(reference), 2),
    String(m.errors),
  ]);
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...lines.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

export async function runPeers(
  context: PeerContext,
  ours: { app: ChildServer; baseline: ChildServer },
  options: PeerOptions,
  log: (line: string) => void,
  onStart: (server: ChildServer) => void,
): Promise<PeerResult[]> {
  // PostGraphile is installed already: bench/run.ts prepares it before starting ours on its Node.
  const postgraphile = await startPostGraphile(options.databaseUrl);
  onStart(postgraphile);
  const servers: Record<System, ChildServer> = { ...ours, postgraphile };
  const windows = Object.fromEntries(
    Object.entries(servers).map(([system, server]) => [system, backendCpuWindow(options.databaseUrl, server.process.pid!)]),
  ) as Record<System, ReturnType<typeof backendCpuWindow>>;
  try {
    const scenarios = (await buildPeerScenarios(context)).filter((scenario) => !options.only || options.only.test(scenario.name));
    for (const scenario of scenarios) {
      await checkSameData(scenario, servers);
      log(`same data: ${scenario.name}`);
    }
    // Unrecorded warm-up: JIT, the pools' connections, PostGraphile's operation plan cache.
    const warmUp = { ...options, duration: Math.min(3, options.duration) };
    for (const scenario of scenarios) for (const v of scenario.variants) await measure(servers[v.system], v.request, warmUp);

    const measured = scenarios.map(() => new Map<PeerVariant, Measurement[]>());
    for (let round = 0; round < options.rounds; round += 1) {
      for (const [index, scenario] of scenarios.entries()) {
        const n = scenario.variants.length;
        const order = scenario.variants.map((_, i) => scenario.variants[(i + round) % n]!);
        for (const variant of order) {
          log(`round ${round + 1}/${options.rounds}: ${scenario.name}, ${variant.system} (${variant.via}) …`);
          const m = await measure(servers[variant.system], variant.request, options, windows[variant.system]);
          measured[index]!.set(variant, [...(measured[index]!.get(variant) ?? []), m]);
        }
      }
    }
    return scenarios.map((scenario, index) => ({
      scenario: scenario.name,
      rows: scenario.variants.map((v) => {
        const rounds = measured[index]!.get(v)!;
        return { system: v.system, via: v.via, median: medianOf(rounds), rounds };
      }),
    }));
  } finally {
    for (const window of Object.values(windows)) await window.close();
  }
}
