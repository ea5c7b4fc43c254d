/**
 * `npm run loadtest` (tsx loadtest/run.ts): the service as it runs in production, under mixed
 * traffic, through an instance crash and a database restart, then a consistency check.
 *
 * 1. A private PostgreSQL 15 server in a temporary folder (or --database-url), migrated and seeded
 *    through the admin CLI; new API keys for two organizations; quotas that never run out.
 * 2. Two API instances (src/app/main.ts, both running the outbox dispatcher, notifications to the
 *    local outbox file, rate limits shared through Redis) behind a round-robin load balancer with
 *    /readyz health checks (loadtest/load-balancer.ts), or `--balancer haproxy`: HAProxy with the
 *    production configuration, deploy/haproxy.cfg (loadtest/haproxy-balancer.ts).
 * 3. autocannon sends the mix of loadtest/traffic.ts for --duration seconds. At 1/3 one instance
 *    is killed with SIGKILL (the "orchestrator" starts it again --restart-delay seconds later); at
 *    2/3 PostgreSQL is restarted (pg_ctl restart -m fast). With --graceful-restart, the other
 *    instance then gets SIGTERM (once the first is back in rotation), as in a rolling deploy.
 * 4. loadtest/consistency.ts compares the answers with the database and the outbox file.
 *
 * `--topology patroni`: the database is etcd + three PostgreSQL nodes under Patroni behind HAProxy
 * and PgBouncer (loadtest/patroni-topology.ts, deploy/patroni/); instead of the PostgreSQL restart,
 * the leader's postmaster gets `kill -9` at --kill-leader-after S, and the report adds the write
 * gap, the lead creations' answers during it and the old leader's rejoining
 * (loadtest/patroni-failover.ts).
 *
 * `--topology patroni --nemesis NAME`: instead of the kill -9, one nemesis of loadtest/nemesis.ts
 * (pause, dcs-loss, partition, pgbouncer-restart, api-kill) at --nemesis-after S, behind HAProxy,
 * with a write probe on every node (loadtest/write-probe.ts); after the consistency check, the
 * history checker (loadtest/nemesis-checker.ts) judges every lead's answer, the final table and
 * the probe (one writer at a time, no acknowledged write lost).
 *
 * Prints the tables and writes everything to loadtest/results/<timestamp>.json. Exits 1 when the
 * consistency check finds a problem (errors during the faults are measured, not failures).
 * Options: `npm run loadtest -- --help`.
 */
import { mkdirSync, mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { SupervisedInstance } from './app-instances';
import { cleanUpOnSignals, cleanup, onCleanup } from './cleanup';
import { checkConsistency, type ConsistencyReport } from './consistency';
import { prepareDatabase } from './fixtures';
import { startHaproxy } from './haproxy-balancer';
import { startLoadBalancer } from './load-balancer';
import { freePort, sleep, waitFor } from './net';
import { parseOptions, type LoadTestOptions } from './options';
import { runNemesis, type NemesisRun } from './nemesis';
import { checkHistory, type CheckResult, type HistoryOperation } from './nemesis-checker';
import { formatFailover, killLeader, waitForRejoin, writeGap, type FailoverFigures } from './patroni-failover';
import { startPatroniTopology, type PatroniTopology } from './patroni-topology';
import { runRestartCommand, startPrivatePostgres } from './postgres-server';
import { startReplicationCluster, type ReplicationCluster } from './replication-cluster';
import {
  formatReplicaFigures,
  instanceReads,
  outageCost,
  resetStatementStats,
  statementPlacement,
  type ReplicaFigures,
} from './replica-topology';
import { deleteRateLimitKeys, redisReachable } from './redis';
import { formatConsistency, formatTrafficTables, summarizeTraffic } from './report';
import { Timeline } from './timeline';
import { Traffic } from './traffic';
import { createProbeTable, probeRows, WriteProbe } from './write-probe';
import { query } from './replication-cluster';

const RESULTS_DIR = path.join(__dirname, 'results');
const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** The environment of both API instances (see README's configuration table). */
function instanceEnvironment(options: LoadTestOptions, databaseUrl: string, dataDir: string, redis: boolean): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    ...(redis ? { REDIS_URL: options.redisUrl } : { REDIS_URL: '' }),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    SEED_DEMO_DATA: 'false',
    // Production refuses a public /metrics: the load test does not scrape it, so a throwaway token.
    METRICS_TOKEN: `loadtest-${process.pid}-${Date.now()}`,
    // One outbox file for both: each delivery is one line, so duplicates across instances show.
    DATA_DIR: dataDir,
    SMTP_URL: '',
    SMS_API_URL: '',
    RUN_DISPATCHER: 'true',
    // A short lease so that the rows a killed instance had claimed come back within the drain wait.
    DISPATCHER_LEASE_MS: '15000',
    NOTIFICATION_SEND_TIMEOUT_MS: '5000',
    NOTIFICATION_BACKOFF_BASE_MS: '500',
    NOTIFICATION_BACKOFF_MAX_MS: '5000',
    // The limiter runs (and shares its counters through Redis) but never refuses: the load is ours.
    RATE_LIMIT_PER_MINUTE: '1000000000',
    LEAD_RATE_LIMIT_PER_MINUTE: '1000000000',
    APP_BASE_URL: 'https://loadtest.vehicle-report.example',
  };
}

function runTraffic(url: string, traffic: Traffic, options: LoadTestOptions): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: options.connections,
        duration: options.duration,
        timeout: options.timeout,
        requests: [
          {
            setupRequest: (request, context) => {
              const { id, request: next } = traffic.next();
              (context as { id?: number }).id = id;
              return { ...request, method: next.method, path: next.path, headers: next.headers, body: next.body ?? '' };
            },
            onResponse: (status, body, context, headers) =>
              traffic.answered((context as { id: number }).id, status, body, headers as Record<string, string | string[]>),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => traffic.measured(responseTime));
    instance.on('reqError', (error) => traffic.clientError(error as Error & { code?: string }));
    onCleanup('traffic', () => instance.stop());
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  cleanUpOnSignals();
  const startedAt = new Date();
  const runId = startedAt.getTime().toString(36);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vr-loadtest-'));
  // The postgres user must be able to reach its data folder inside.
  chmodSync(tmp, 0o711);
  onCleanup('temporary folder', () => (options.keep ? log(`kept ${tmp}`) : rmSync(tmp, { recursive: true, force: true })));
  const timeline = new Timeline();

  let databaseUrl = options.databaseUrl;
  let restartPostgres: (() => Promise<void>) | undefined;
  let cluster: ReplicationCluster | undefined;
  let patroni: PatroniTopology | undefined;
  if (options.topology === 'patroni') {
    log('starting etcd, three PostgreSQL 15 nodes under Patroni (synchronous mode), HAProxy and PgBouncer');
    const started = await startPatroniTopology({ parentDir: tmp, log });
    patroni = started;
    onCleanup('Patroni topology', () => started.stop());
    // Migrations, seeding and the consistency check: through HAProxy's primary port (the leader of the moment).
    databaseUrl = started.primaryUrl;
  } else if (options.topology === 'replica') {
    log('starting a PostgreSQL 15 primary, a pg_basebackup hot standby and PgBouncer (transaction mode)');
    cluster = await startReplicationCluster({ pgbouncer: true, parentDir: tmp });
    const started = cluster;
    onCleanup('primary, standby and PgBouncer', () => started.stop());
    databaseUrl = cluster.primaryUrl;
    log(`  primary ${cluster.primaryUrl}\n  standby ${cluster.standbyUrl}\n  PgBouncer ${cluster.pgbouncerUrl}`);
  } else if (databaseUrl) {
    const command = options.pgRestartCommand;
    if (command) restartPostgres = () => runRestartCommand(command);
    log(`using ${new URL(databaseUrl).host}${restartPostgres ? '' : ' (no PostgreSQL restart: no --pg-restart-command)'}`);
  } else {
    log('starting a private PostgreSQL 15 server');
    const server = await startPrivatePostgres(path.join(tmp, 'pg'));
    onCleanup('PostgreSQL', () => server.stop());
    databaseUrl = server.url;
    restartPostgres = server.restart;
    log(`  ${databaseUrl}`);
  }

  log('preparing the database (admin CLI)');
  const prepared = await prepareDatabase(databaseUrl, options.reports, log);
  const redis = options.redisUrl !== '' && (await redisReachable(options.redisUrl));
  if (redis) onCleanup('rate-limit keys', () => deleteRateLimitKeys(options.redisUrl, prepared.apiKeyIds));
  else log(`Redis ${options.redisUrl || '(none)'} not reachable: rate limits per instance`);

  const dataDir = path.join(tmp, 'app-data');
  mkdirSync(dataDir);
  const env = instanceEnvironment(options, databaseUrl, dataDir, redis);
  if (cluster) {
    // Writes through PgBouncer, migrations directly, lists and fetches from the standby.
    Object.assign(env, {
      DATABASE_URL: cluster.pgbouncerUrl!,
      DATABASE_DIRECT_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URLS: cluster.standbyUrl,
      REPLICA_CHECK_INTERVAL_MS: '500',
    });
  }
  if (patroni) {
    // Writes through PgBouncer, migrations and LISTEN through HAProxy's primary port, reads from the standbys.
    Object.assign(env, {
      DATABASE_URL: patroni.pgbouncerUrl,
      DATABASE_DIRECT_URL: patroni.primaryUrl,
      DATABASE_REPLICA_URLS: patroni.replicasUrl,
      REPLICA_CHECK_INTERVAL_MS: '500',
    });
  }
  const instances: SupervisedInstance[] = [];
  for (const name of ['api-1', 'api-2']) {
    instances.push(
      new SupervisedInstance({
        name,
        port: await freePort(),
        env,
        logFile: path.join(tmp, `${name}.log`),
        restartDelayMs: options.restartDelay * 1000,
        timeline,
      }),
    );
  }
  onCleanup('API instances', async () => {
    await Promise.all(instances.map((i) => i.stop()));
  });
  log('starting api-1 and api-2');
  instances.forEach((i) => i.start());
  await Promise.all(instances.map((i) => waitFor(`${i.name} to be ready`, 180_000, () => i.ready())));

  const backends = instances.map((i) => ({ name: i.name, port: i.port }));
  const balancer =
    options.balancer === 'haproxy'
      ? await startHaproxy({ backends, dir: tmp, timeline })
      : await startLoadBalancer({ backends, upstreamTimeoutMs: options.upstreamTimeout * 1000, timeline });
  onCleanup('load balancer', () => balancer.close());
  await waitFor('both instances in rotation', 30_000, async () => balancer.backends.every((b) => b.healthy));

  if (cluster) {
    await cluster.waitForStandbyToCatchUp();
    await resetStatementStats(cluster);
  }
  if (patroni && options.nemesis) await createProbeTable(patroni.primaryUrl);
  const traffic = new Traffic(prepared.organizations, runId, () => timeline.now());
  log(`\n${options.duration} s of traffic over ${options.connections} connections through ${balancer.url}`);
  timeline.start();
  timeline.mark('traffic starts');
  const faults: Promise<void>[] = [];
  const timers: NodeJS.Timeout[] = [];
  let probe: WriteProbe | undefined;
  let nemesisRun: (NemesisRun & { at: number }) | undefined;
  if (patroni && options.nemesis) {
    const topology = patroni;
    const name = options.nemesis;
    probe = new WriteProbe(
      topology.nodes.map((n) => ({ name: n.name, url: n.url })),
      () => timeline.now() * 1000,
    );
    probe.start();
    faults.push(
      new Promise<void>((resolve) => {
        timers.push(
          setTimeout(() => {
            const at = timeline.now();
            timeline.mark(`nemesis ${name} begins`);
            runNemesis(name, {
              topology,
              faultMs: options.faultSeconds * 1000,
              mark: (event) => timeline.mark(event),
              killApiInstance: async () => {
                // The orchestrator starts it again after --restart-delay.
                instances[0]!.kill();
                await sleep(options.restartDelay * 1000);
                return instances[0]!.name;
              },
            }).then(
              (run) => {
                nemesisRun = { ...run, at };
                resolve();
              },
              (error: Error) => {
                timeline.mark(`nemesis ${name} failed: ${error.message}`);
                resolve();
              },
            );
          }, options.nemesisAfter! * 1000),
        );
      }),
    );
  }
  if (options.kill) timers.push(setTimeout(() => instances[0]!.kill(), (options.duration * 1000) / 3));
  if (options.gracefulRestart) {
    // After the PostgreSQL restart, and, as a rolling deploy does, once api-1 is back in rotation.
    const deadline = options.duration - 5;
    const tryRestart = () => {
      if (balancer.backends.every((b) => b.healthy)) instances[1]!.terminate();
      else if (timeline.now() < deadline) timers.push(setTimeout(tryRestart, 500));
      else timeline.mark('graceful restart of api-2 skipped: api-1 not back in rotation in time');
    };
    timers.push(setTimeout(tryRestart, ((options.duration * 2) / 3 + 3) * 1000));
  }
  let pgRestartSeconds: number | undefined;
  if (options.pgRestart && restartPostgres) {
    const restart = restartPostgres;
    timers.push(
      setTimeout(
        () => {
          timeline.mark('PostgreSQL restart begins (pg_ctl restart -m fast)');
          const began = performance.now();
          faults.push(
            restart().then(
              () => {
                pgRestartSeconds = (performance.now() - began) / 1000;
                timeline.mark(`PostgreSQL accepts connections again (${pgRestartSeconds.toFixed(1)} s)`);
              },
              (error: Error) => timeline.mark(`PostgreSQL restart failed: ${error.message}`),
            ),
          );
        },
        (options.duration * 2000) / 3,
      ),
    );
  }
  let replicaOutage: { from: number; to: number } | undefined;
  if (cluster && options.pgRestart) {
    // The replica topology's database fault: the standby goes away under traffic, then comes back.
    const standby = cluster;
    timers.push(
      setTimeout(
        () => {
          const from = timeline.now();
          timeline.mark('standby stopped (pg_ctl stop -m fast)');
          faults.push(
            standby.stopStandby().then(
              () =>
                new Promise<void>((resolve) => {
                  timers.push(
                    setTimeout(() => {
                      replicaOutage = { from, to: timeline.now() };
                      timeline.mark('standby starting again');
                      void standby.startStandby().then(
                        () => {
                          timeline.mark('standby accepts connections again');
                          resolve();
                        },
                        (error: Error) => {
                          timeline.mark(`standby start failed: ${error.message}`);
                          resolve();
                        },
                      );
                    }, options.replicaOutage * 1000),
                  );
                }),
              (error: Error) => timeline.mark(`standby stop failed: ${error.message}`),
            ),
          );
        },
        (options.duration * 2000) / 3,
      ),
    );
  }
  let failover: Omit<FailoverFigures, 'writeGapSeconds' | 'killToFirstWriteSeconds' | 'leadsDuringGap'> | undefined;
  if (patroni && options.killLeaderAfter !== undefined) {
    const topology = patroni;
    timers.push(
      setTimeout(() => {
        faults.push(
          // The election, then the old leader's return as a replica, timed as they happen.
          killLeader(topology, timeline).then(
            async (result) => {
              failover = { ...result, ...(await waitForRejoin(topology, result.killed, timeline)) };
            },
            (error: Error) => timeline.mark(`kill of the Patroni leader failed: ${error.message}`),
          ),
        );
      }, options.killLeaderAfter * 1000),
    );
  }
  onCleanup('fault timers', () => timers.forEach(clearTimeout));
  const result = await runTraffic(balancer.url, traffic, options);
  const endedAt = timeline.now();
  timeline.mark('traffic ends');
  await Promise.all(faults);
  await probe?.stop();

  // The retries and the drain go through both instances, as production would.
  await waitFor('both instances back in rotation', 120_000, async () => balancer.backends.every((b) => b.healthy)).catch((error: Error) =>
    log(`  ${error.message}`),
  );
  log('\nconsistency check');
  const consistency: ConsistencyReport = await checkConsistency({
    databaseUrl,
    runId,
    leads: traffic.leads,
    organizations: prepared.organizations,
    entityIds: prepared.entityIds,
    loadBalancerUrl: balancer.url,
    outboxFile: path.join(dataDir, 'outbox.log'),
    requestTimeoutMs: options.timeout * 1000,
    drainTimeoutMs: options.drainTimeout * 1000,
    trafficStartedAtMs: timeline.originEpochMs,
    faults: timeline.events.filter((e) => /^(kill -9|SIGTERM|PostgreSQL restart begins|nemesis )/.test(e.event)),
    log,
  });

  let nemesisCheck: CheckResult | undefined;
  if (patroni && probe && options.nemesis) {
    await patroni.waitUntilHealthy({ timeoutMs: 120_000 }).catch((error: Error) => log(`  Patroni not healthy again: ${error.message}`));
    nemesisCheck = await checkNemesisRun(patroni.primaryUrl, runId, traffic, probe, nemesisRun?.at);
  }
  const summary = summarizeTraffic(traffic, endedAt, options.timeout);
  const failoverFigures: FailoverFigures | undefined =
    patroni && failover ? { ...failover, ...writeGap(traffic.leads, failover.killed.at) } : undefined;
  const replicaFigures: ReplicaFigures | undefined = cluster
    ? {
        statements: await statementPlacement(cluster),
        instanceReads: await instanceReads(
          instances.map((i) => i.port),
          env.METRICS_TOKEN!,
        ),
        outage: replicaOutage && outageCost(traffic.perSecond, replicaOutage.from, replicaOutage.to),
      }
    : undefined;
  const instanceFigures = Object.fromEntries(
    instances.map((i) => [i.name, { starts: i.starts, unexpectedExits: i.unexpectedExits, errorLogs: i.errorLogSummary() }]),
  );
  const output = {
    startedAt: startedAt.toISOString(),
    options: { ...options, databaseUrl: options.databaseUrl ? '(external)' : undefined },
    machine: { cpus: os.cpus().length, node: process.version, loadAverageAtEnd: os.loadavg() },
    redisShared: redis,
    timeline: timeline.events,
    traffic: summary,
    autocannon: { requests: result.requests.total, errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx },
    loadBalancer: balancer.stats,
    instances: instanceFigures,
    postgresRestartSeconds: pgRestartSeconds,
    replicaTopology: replicaFigures,
    patroniFailover: failoverFigures,
    nemesis: options.nemesis ? { run: nemesisRun, check: nemesisCheck, probeWrites: probe?.writes.length } : undefined,
    consistency,
    perSecond: traffic.perSecond,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);

  const lines = [
    '',
    `## Load test, ${startedAt.toISOString()} (${options.duration} s, ${options.connections} connections, ${os.cpus().length} CPUs)`,
    '',
    'Timeline:',
    ...timeline.events.filter((e) => e.at >= 0).map((e) => `  ${e.at.toFixed(1).padStart(6)} s  ${e.event}`),
    '',
    formatTrafficTables(summary, options.duration),
    '',
    options.balancer === 'haproxy'
      ? 'Load balancer: HAProxy with deploy/haproxy.cfg (its answers are counted above as "from load balancer (haproxy)")'
      : `Load balancer: forwarded ${Object.entries(balancer.stats.forwardedPerInstance)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}; ` +
        `retries on the other instance ${balancer.stats.retries}; own answers ${JSON.stringify(balancer.stats.ownAnswers)}; ` +
        `sent while none healthy ${balancer.stats.failOpen}; clients gone before the answer ${balancer.stats.clientsGone}`,
    `Instances: ${Object.entries(instanceFigures)
      .map(([k, v]) => `${k} started ${v.starts}× (error logs: ${JSON.stringify(v.errorLogs)})`)
      .join('; ')}`,
    '',
    formatConsistency(consistency),
    '',
    ...(replicaFigures ? [formatReplicaFigures(replicaFigures), ''] : []),
    ...(failoverFigures ? [formatFailover(failoverFigures, consistency), ''] : []),
    ...(options.nemesis ? [formatNemesis(options.nemesis, nemesisRun, nemesisCheck), ''] : []),
    `written to ${path.relative(process.cwd(), file)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = consistency.problems.length === 0 && (nemesisCheck?.problems.length ?? 0) === 0 ? 0 : 1;
}

/** The history checker over the run: every lead's first answer, every answer's class, the final table, the write probe. */
async function checkNemesisRun(
  primaryUrl: string,
  runId: string,
  traffic: Traffic,
  probe: WriteProbe,
  faultAt: number | undefined,
): Promise<CheckResult> {
  const operations: HistoryOperation[] = traffic.leads
    .filter((lead) => lead.sentAt !== undefined)
    .map((lead) => ({
      kind: 'write',
      key: lead.idempotencyKey,
      sentAt: lead.sentAt! * 1000,
      answeredAt: (lead.answeredAt ?? lead.sentAt!) * 1000,
      status: lead.status ?? 0,
      // The balancer's own 503s carry Retry-After (deploy/haproxy.cfg); the label says which had one.
      retryAfter: lead.outcome === '503 with Retry-After' || lead.outcome?.startsWith('503 from load balancer') ? 'yes' : null,
      token: lead.token,
    }));
  const rows = await query<{ folder_name: string; token: string }>(
    primaryUrl,
    'SELECT folder_name, token::text AS token FROM reports WHERE folder_name LIKE $1',
    [`LT-${runId}-%`],
  );
  const byKey = new Map<string, string[]>();
  for (const row of rows) {
    const key = `lt-${runId}-${row.folder_name.slice(row.folder_name.lastIndexOf('-') + 1)}`;
    byKey.set(key, [...(byKey.get(key) ?? []), row.token]);
  }
  const result = checkHistory({
    operations,
    finalReports: [...byKey].map(([key, tokens]) => ({ key, tokens })),
    probes: probe.writes,
    probeRowsFound: await probeRows(primaryUrl),
    faultAt: faultAt === undefined ? undefined : faultAt * 1000,
  });
  // The other requests' answers (lists, fetches, GraphQL): the same classes only.
  for (const [kind, outcomes] of traffic.outcomes) {
    if (kind === 'create lead') continue;
    for (const [label, count] of outcomes) {
      const status = Number(label.slice(0, 3));
      const allowed = status < 500 || label === '503 with Retry-After' || label.startsWith('503 from load balancer');
      if (!allowed) result.problems.push(`${count} × ${kind} ${label}: only 2xx, 4xx and 503 with Retry-After are allowed`);
    }
  }
  return result;
}

function formatNemesis(name: string, run: (NemesisRun & { at: number }) | undefined, check: CheckResult | undefined): string {
  if (!run || !check) return `Nemesis ${name}: did not run to its end (see the timeline)`;
  const f = check.figures;
  const s = (x: number | undefined) => (x === undefined ? '-' : `${x.toFixed(1)} s`);
  return [
    `Nemesis ${name} at ${run.at.toFixed(1)} s on ${run.target} (leader before: ${run.leaderBefore ?? 'none'}; new leader: ${
      run.newLeader ? `${run.newLeader.name} after ${(run.newLeader.afterMs / 1000).toFixed(1)} s` : 'none'
    })`,
    `  longest time without a 201 from the fault on: ${s(f.longestWriteGapSeconds)}; writes back ${s(f.writesBackAfterSeconds)} after the fault`,
    `  lead answers (first answers): ${JSON.stringify(f.answersByStatus)}; without an answer ${f.noAnswer}`,
    `  acknowledged ${f.acknowledged} / found ${f.found}; keys with several reports ${f.duplicates}`,
    `  write probe, acknowledged per node: ${JSON.stringify(f.probeAcknowledgedByNode)}; acknowledged but lost ${f.probeAcknowledgedLost}`,
    `  checker: ${check.problems.length === 0 ? 'nothing wrong' : `${check.problems.length} problems:\n    ${check.problems.slice(0, 20).join('\n    ')}`}`,
  ].join('\n');
}

main()
  .catch((error: unknown) => {
    log(`load test failed: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanup();
    // autocannon's and the pools' timers must not keep the process alive once everything is stopped.
    process.exit(process.exitCode ?? 0);
  });
