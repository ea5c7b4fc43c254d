/**
 * `--balancer haproxy`: the production balancer's own configuration (deploy/haproxy.cfg) in front
 * of the test's instances, instead of the built-in one. The file is used as it is, except for what
 * only makes sense inside docker compose: the listening address, the servers' addresses, Docker's
 * DNS resolver. Its own error answers get an `x-lb-error` header so the report can attribute them.
 * Needs the haproxy binary (Debian: apt-get install haproxy).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../src/platform/project-root';
import type { Backend, LoadBalancer } from './load-balancer';
import { freePort, sleep, waitFor } from './net';
import type { Timeline } from './timeline';

export const DEPLOY_HAPROXY_CONFIG = path.join(PROJECT_ROOT, 'deploy', 'haproxy.cfg');

function replaceOnce(text: string, pattern: RegExp, replacement: string, what: string): string {
  if (!pattern.test(text)) throw new Error(`deploy/haproxy.cfg: ${what} not found; loadtest/haproxy-balancer.ts needs updating`);
  return text.replace(pattern, replacement);
}

/** deploy/haproxy.cfg with loopback addresses instead of the compose network's. */
export function localHaproxyConfig(config: string, port: number, backends: Backend[]): string {
  let local = replaceOnce(config, /^(\s*)bind :\d+$/m, `$1bind 127.0.0.1:${port}`, 'the bind line');
  local = replaceOnce(local, /^resolvers docker\n(?:[ \t]+.*\n|[ \t]*\n(?=[ \t]))*/m, '', 'the docker resolvers section');
  local = replaceOnce(local, / resolvers docker/, '', "the servers' resolvers option");
  for (const backend of backends) {
    local = replaceOnce(
      local,
      new RegExp(`^(\\s*server ${backend.name}) \\S+`, 'm'),
      `$1 127.0.0.1:${backend.port}`,
      `server ${backend.name}`,
    );
  }
  local = local.replace(/^(\s*http-error status (\d+) .*)$/gm, '$1 hdr X-LB-Error haproxy');
  return local;
}

export async function startHaproxy(options: { backends: Backend[]; dir: string; timeline: Timeline }): Promise<LoadBalancer> {
  const { backends, timeline } = options;
  const port = await freePort();
  const file = path.join(options.dir, 'haproxy.cfg');
  writeFileSync(file, localHaproxyConfig(readFileSync(DEPLOY_HAPROXY_CONFIG, 'utf8'), port, backends));
  const state = backends.map((b) => ({ name: b.name, healthy: true }));
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Its log (one line per request: timings, termination state) next to its configuration.
  const log = createWriteStream(path.join(options.dir, 'haproxy-balancer.log'), { flags: 'a' });
  child.once('exit', () => log.end());
  const started = new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`cannot run haproxy (apt-get install haproxy): ${error.message}`)));
    child.once('spawn', () => resolve());
  });
  // Server state changes, e.g. "Server api/api-1 is DOWN, reason: Layer4 connection problem, …"
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      log.write(`${line}\n`);
      const change = /Server \S+\/(\S+) is (DOWN|UP)(?:, reason: ([^,]+))?/.exec(line);
      const backend = change && state.find((b) => b.name === change[1]);
      // HAProxy reports a change both as a warning (stderr) and in its log (stdout): once is enough.
      if (!change || !backend || backend.healthy === (change[2] === 'UP')) return;
      backend.healthy = change[2] === 'UP';
      timeline.mark(
        `haproxy: ${backend.name} ${backend.healthy ? 'back in rotation' : `out of rotation (${change[3] ?? 'check failed'})`}`,
      );
    });
  }
  await started;
  await waitFor('haproxy to listen', 10_000, async () => (await fetch(`http://127.0.0.1:${port}/lb-health`)).ok);
  return {
    url: `http://127.0.0.1:${port}`,
    backends: state,
    // HAProxy keeps its own counters; the client-side figures are the ones the report uses.
    stats: { forwardedPerInstance: {}, retries: 0, ownAnswers: {}, failOpen: 0, clientsGone: 0 },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
