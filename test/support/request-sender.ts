/**
 * Sends requests from a separate process, so that a test measuring the server's CPU (the server
 * runs in the test's own process: its utime+stime) counts the server's work only, not the client's
 * building and sending of large bodies. The child is started once and kept: starting a process
 * costs its parent CPU too (a few milliseconds a batch), which is the harness's, not the server's.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SentRequest {
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface SentAnswer {
  status: number;
  headers: Record<string, string>;
  /** the first bytes of the body */
  body: string;
}

/** The child: for each line on its input (a file of requests), sends them one after another and prints the answers as one line. */
const SENDER = `
const fs = require('node:fs');
const readline = require('node:readline');
const base = process.argv[1];
readline.createInterface({ input: process.stdin }).on('line', async (file) => {
  try {
    const requests = JSON.parse(fs.readFileSync(file, 'utf8'));
    const answers = [];
    for (const r of requests) {
      const response = await fetch(base + r.path, { method: r.method ?? 'POST', headers: r.headers, body: r.body });
      const body = await response.text();
      answers.push({ status: response.status, headers: Object.fromEntries(response.headers), body: body.slice(0, 300) });
    }
    process.stdout.write(JSON.stringify(answers) + '\\n');
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
});
`;

export interface RequestSender {
  /** Writes the requests to a file (bodies can be large); `send` then sends them all from the child. */
  prepare(requests: readonly SentRequest[]): Promise<{ send: () => Promise<SentAnswer[]> }>;
  close(): Promise<void>;
}

/** Starts the sending process for the server at `baseUrl`. */
export async function startRequestSender(baseUrl: string): Promise<RequestSender> {
  const folder = await mkdtemp(path.join(tmpdir(), 'vr-sender-'));
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', SENDER, baseUrl], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let out = '';
  let err = '';
  let waiting: { resolve: (answers: SentAnswer[]) => void; reject: (error: Error) => void } | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk;
    const end = out.indexOf('\n');
    if (end < 0 || !waiting) return;
    const line = out.slice(0, end);
    out = out.slice(end + 1);
    const { resolve } = waiting;
    waiting = undefined;
    resolve(JSON.parse(line) as SentAnswer[]);
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk));
  child.on('exit', (code) => waiting?.reject(new Error(`the sender exited ${code}: ${err}`)));
  let batches = 0;
  return {
    async prepare(requests) {
      const file = path.join(folder, `requests-${(batches += 1)}.json`);
      await writeFile(file, JSON.stringify(requests));
      return {
        send: () =>
          new Promise<SentAnswer[]>((resolve, reject) => {
            waiting = { resolve, reject };
            child.stdin.write(`${file}\n`);
          }),
      };
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** CPU this process has used, in milliseconds (utime + stime: what /proc/self/stat counts, at microsecond resolution). */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
