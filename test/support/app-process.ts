/**
 * The service as a real process (`src/app/main.ts`, as `npm start` runs it), for tests about the
 * process itself: start-up, shutdown, surviving what a request can do to it.
 *
 * It listens on PORT=0 and the test learns the port from its log. Ports chosen by the test were
 * once reused: each test file counted from the same first port, and a process a failed test left
 * running still had it, so the next file's test talked to that process (a 401 for its own keys).
 * A process that does not become ready is killed, and so is any its test file left running (a
 * failed assertion before the test's own stop): a process left running kept its port, its CPU,
 * and Jest waiting on its output pipes after the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait';

export const ROOT = path.resolve(__dirname, '..', '..');

/**
 * A hang guard, not a speed test: an empty PGlite folder is migrated and seeded in ~17 s on a
 * quiet machine, but took over 90 s in a CI run on a slow machine with the other worker busy.
 * One deadline from the spawn, for listening and ready together: the test files' own timeouts
 * (240 s, 300 s) are over it, so a start that never becomes ready fails here, with its output.
 */
const READY_WITHIN_MS = 180_000;

export interface AppProcess {
  child: ChildProcess;
  /** The port it listens on (known once it listens: see appProcessListening). */
  readonly port: number;
  readonly url: string;
  /** Whether it has logged that it listens (its port is then known). */
  listening: () => boolean;
  output: () => string;
  exited: Promise<number | null>;
  /** when it was spawned (performance.now()): the readiness deadline counts from there */
  startedAt: number;
}

/** The line main.ts logs once it listens (pino, LOG_LEVEL=info). */
const LISTENING = /"port":(\d+),[^\n]*listening on/;

const running = new Set<ChildProcess>();

afterAll(async () => {
  await Promise.all(
    [...running].map((child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return exited;
    }),
  );
});

export function startAppProcess(env: Record<string, string>): AppProcess {
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/app/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let port: number | undefined;
  const collect = (chunk: Buffer) => {
    output += chunk;
    if (port !== undefined) return;
    const listening = LISTENING.exec(output);
    if (listening) port = Number(listening[1]);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    get port() {
      if (port === undefined) throw new Error('the process does not listen yet: await appProcessListening first');
      return port;
    },
    get url() {
      return `http://127.0.0.1:${this.port}`;
    },
    listening: () => port !== undefined,
    output: () => output,
    exited,
    startedAt,
  };
}

/** Waits until the process listens (its port then known); kills it and fails with its output if it does not. */
export async function appProcessListening(started: AppProcess): Promise<void> {
  await whileRunning(started, started.listening);
}

/** Waits until the process answers /readyz with 200; kills it and fails with its output if it does not. */
export async function appProcessReady(started: AppProcess): Promise<void> {
  await appProcessListening(started);
  await whileRunning(started, async () => (await fetch(`${started.url}/readyz`).catch(() => null))?.status === 200);
}

async function whileRunning(started: AppProcess, condition: () => boolean | Promise<boolean>): Promise<void> {
  try {
    await waitFor(
      async () => {
        if (started.child.exitCode !== null || started.child.signalCode !== null) throw new Error('the process ended');
        return condition();
      },
      Math.max(0, READY_WITHIN_MS - (performance.now() - started.startedAt)),
      200,
    );
  } catch (error) {
    const exitCode = started.child.exitCode ?? started.child.signalCode;
    if (exitCode === null) {
      started.child.kill('SIGKILL');
      await started.exited;
    }
    // What the process said is the only account of a start that never became ready.
    const said = started.output().split('\n').slice(-40).join('\n');
    throw new Error(`${(error as Error).message}; exit code ${exitCode ?? 'none (killed)'}; its last output:\n${said}`);
  }
}

export async function stopAppProcess(started: AppProcess): Promise<number | null> {
  started.child.kill('SIGTERM');
  return started.exited;
}

export const demoKeysIn = (output: string) => [...new Set([...output.matchAll(/vr_demo_[A-Za-z0-9_-]{32}/g)].map((m) => m[0]))];
