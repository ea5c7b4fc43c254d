/**
 * The API instances under test: `node --import tsx src/app/main.ts` child processes (one process each,
 * so `kill -9` kills the server itself, not a wrapper), supervised the way an orchestrator does
 * it: an instance that exits for any reason is started again after a delay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/platform/project-root';
import { sleep } from './net';
import type { Timeline } from './timeline';

export interface InstanceOptions {
  name: string;
  port: number;
  env: Record<string, string>;
  /** stdout and stderr (pino JSON lines) are appended here */
  logFile: string;
  restartDelayMs: number;
  timeline: Timeline;
}

export class SupervisedInstance {
  private child: ChildProcess | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  /** starts, including the first */
  starts = 0;
  /** exits while supervised (crash, kill -9, failed start, or a graceful restart) */
  unexpectedExits = 0;

  constructor(private readonly options: InstanceOptions) {}

  get name(): string {
    return this.options.name;
  }

  get port(): number {
    return this.options.port;
  }

  start(): void {
    const { name, env, logFile, timeline } = this.options;
    const log = openSync(logFile, 'a');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'src', 'app', 'main.ts')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env, PORT: String(this.options.port) },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    this.child = child;
    this.starts += 1;
    if (this.starts > 1) timeline.mark(`${name} started again by the orchestrator (pid ${child.pid})`);
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (this.stopping) return;
      this.unexpectedExits += 1;
      timeline.mark(`${name} exited (${signal ?? `code ${code}`})`);
      this.restartTimer = setTimeout(() => this.start(), this.options.restartDelayMs);
    });
  }

  /** Like `kill -9`: no shutdown, in-flight requests and claimed outbox rows are abandoned. */
  kill(): void {
    if (!this.child) return;
    this.options.timeline.mark(`kill -9 ${this.name} (pid ${this.child.pid})`);
    this.child.kill('SIGKILL');
  }

  /** A deploy's step: SIGTERM, the instance drains and exits, the orchestrator starts it again. */
  terminate(): void {
    if (!this.child) return;
    this.options.timeline.mark(`SIGTERM ${this.name} (pid ${this.child.pid}): graceful restart`);
    this.child.kill('SIGTERM');
  }

  /** Graceful stop (SIGTERM, then SIGKILL after 15 s); no restart. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }

  async ready(): Promise<boolean> {
    const response = await fetch(`http://127.0.0.1:${this.port}/readyz`, { signal: AbortSignal.timeout(1_000) });
    return response.status === 200;
  }

  /** Error and fatal log lines of every run of this instance, counted by message. */
  errorLogSummary(): Record<string, number> {
    return summarizeErrorLogs(this.options.logFile);
  }
}

/** pino levels: 50 error, 60 fatal. Lines that are not JSON (a crash's stack trace) count as "non-JSON output". */
export function summarizeErrorLogs(file: string): Record<string, number> {
  const counts: Record<string, number> = {};
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return counts;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let entry: { level?: number; msg?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      counts['non-JSON output'] = (counts['non-JSON output'] ?? 0) + 1;
      continue;
    }
    if ((entry.level ?? 0) >= 50) {
      const key = `${entry.level === 60 ? 'fatal' : 'error'}: ${entry.msg ?? '(no message)'}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  return counts;
}
