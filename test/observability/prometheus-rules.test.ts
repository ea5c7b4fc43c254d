/**
 * The alert and recording rules in deploy/prometheus/ (issue 46), checked by Prometheus itself
 * (Debian's `prometheus` package, provided by test/support/provision.ts; missing, the run fails):
 * `promtool test rules` runs their unit tests, and a real Prometheus server scrapes a running
 * instance's /metrics and evaluates them: the recording rules give values from the service's own
 * series, and no rule fails to evaluate.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../loadtest/net';
import { ROOT } from '../support/app-process';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../notifications/support';

const RULES_DIR = path.join(ROOT, 'deploy', 'prometheus');
const RULES = path.join(RULES_DIR, 'vehicle-report-api.rules.yml');

describe('Prometheus rules (deploy/prometheus)', () => {
  it('pass promtool: the rules and the example configuration check, and the unit tests pass', () => {
    const check = spawnSync('promtool', ['check', 'config', path.join(RULES_DIR, 'prometheus.example.yml')], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toContain('SUCCESS: 24 rules found');
    expect(check.status).toBe(0);
    const tests = spawnSync('promtool', ['test', 'rules', path.join(RULES_DIR, 'rules.test.yml')], { encoding: 'utf8' });
    expect(tests.stdout + tests.stderr).toContain('SUCCESS');
    expect(tests.status).toBe(0);
  });

  describe('a real Prometheus server scraping a running instance', () => {
    let server: TestServer;
    let prometheus: ChildProcess;
    let folder: string;
    let api: string;
    let output = '';

    beforeAll(async () => {
      server = await startTestServer('postgres', { reports: 20 });
      folder = mkdtempSync(path.join(tmpdir(), 'vr-prometheus-'));
      const target = new URL(server.url).host;
      writeFileSync(
        path.join(folder, 'prometheus.yml'),
        JSON.stringify({
          global: { scrape_interval: '1s', evaluation_interval: '1s' },
          rule_files: [RULES],
          scrape_configs: [{ job_name: 'vehicle-report-api', metrics_path: '/metrics', static_configs: [{ targets: [target] }] }],
        }),
      );
      const port = await freePort();
      api = `http://127.0.0.1:${port}/api/v1`;
      prometheus = spawn(
        '/usr/bin/prometheus',
        [
          `--config.file=${path.join(folder, 'prometheus.yml')}`,
          `--storage.tsdb.path=${path.join(folder, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      prometheus.stdout!.on('data', (chunk: Buffer) => (output += chunk));
      prometheus.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    }, 120_000);

    afterAll(async () => {
      if (prometheus && prometheus.exitCode === null) {
        const exited = new Promise((resolve) => prometheus.once('exit', resolve));
        prometheus.kill('SIGTERM');
        await exited;
      }
      await server?.close();
      if (folder) rmSync(folder, { recursive: true, force: true });
    });

    const query = async (expr: string) => {
      const response = await fetch(`${api}/query?query=${encodeURIComponent(expr)}`).catch(() => undefined);
      if (!response?.ok) return [];
      const body = (await response.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      return body.data.result;
    };

    it('records the request rate and the event-loop utilization from the instance, and evaluates every rule without error', async () => {
      // Traffic while Prometheus scrapes: a rate needs two scrapes of a changing counter.
      let sending = true;
      const traffic = (async () => {
        while (sending) {
          await fetch(`${server.url}/public/reports/?limit=5`, { headers: { 'x-api-key': server.keys[0]! } });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      try {
        const rates = await waitFor(
          async () => {
            const result = await query('vr:http_requests:rate5m{route="/public/reports/"}');
            return result.length > 0 && Number(result[0]!.value[1]) > 0 && result;
          },
          `vr:http_requests:rate5m recorded (Prometheus said: ${output.slice(-2000)})`,
          60_000,
        );
        expect(rates[0]!.metric).toMatchObject({ job: 'vehicle-report-api', route: '/public/reports/' });
        const utilization = await waitFor(async () => {
          const result = await query('vr:event_loop_utilization:rate1m');
          return result.length > 0 && result;
        }, 'vr:event_loop_utilization:rate1m recorded');
        const value = Number(utilization[0]!.value[1]);
        expect(value).toBeGreaterThan(0);
        expect(value).toBeLessThanOrEqual(1);
      } finally {
        sending = false;
        await traffic;
      }
      // Every rule evaluated at least once (health no longer `unknown`), none with an error.
      const all = await waitFor(async () => {
        const rules = (await (await fetch(`${api}/rules`)).json()) as {
          data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
        };
        const found = rules.data.groups.flatMap((g) => g.rules);
        return found.every((r) => r.health !== 'unknown') && found;
      }, 'every rule evaluated');
      expect(all).toHaveLength(24);
      expect(all.filter((r) => r.health !== 'ok')).toEqual([]);
    });
  });
});
