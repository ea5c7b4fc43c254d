/**
 * The service as a real process (`src/app/main.ts`, as `npm start` runs it), for tests about the
 * process itself: start-up, shutdown, surviving what a request can do to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait';

export const ROOT = path.resolve(__dirname, '..', '..');
let nextPort = 4600 + (process.pid % 200) * 5;

export interface AppProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

export function startAppProcess(env: Record<string, string>): AppProcess {
  const port = nextPort++;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/app/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

export async function appProcessReady(started: AppProcess): Promise<void> {
  await waitFor(
    async () => {
      const response = await fetch(`${started.url}/readyz`).catch(() => null);
      return response?.status === 200;
      // A hang guard, not a speed test (the machine may be busy): start-up time is measured elsewhere.
    },
    90_000,
    200,
  );
}

export async function stopAppProcess(started: AppProcess): Promise<number | null> {
  started.child.kill('SIGTERM');
  return started.exited;
}

export const demoKeysIn = (output: string) => [...new Set([...output.matchAll(/vr_demo_[A-Za-z0-9_-]{32}/g)].map((m) => m[0]))];
