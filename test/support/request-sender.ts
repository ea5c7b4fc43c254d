/**
 * Sends requests from a separate process, so that a test measuring the server's CPU (the server
 * runs in the test's own process: its utime+stime) counts the server's work only, not the client's
 * building and sending of large bodies.
 */
import { spawn } from 'node:child_process';
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

/** The child: reads the requests from a file, sends them one after another, prints the answers. */
const SENDER = `
const fs = require('node:fs');
const [file, base] = process.argv.slice(1);
const requests = JSON.parse(fs.readFileSync(file, 'utf8'));
(async () => {
  const answers = [];
  for (const r of requests) {
    const response = await fetch(base + r.path, { method: r.method ?? 'POST', headers: r.headers, body: r.body });
    const body = await response.text();
    answers.push({ status: response.status, headers: Object.fromEntries(response.headers), body: body.slice(0, 300) });
  }
  process.stdout.write(JSON.stringify(answers));
})().catch((error) => { console.error(error); process.exit(1); });
`;

/** Builds the requests (bodies can be large: written to a file), then sends them all from a child process. */
export async function prepareSender(baseUrl: string, requests: readonly SentRequest[]): Promise<{ send: () => Promise<SentAnswer[]> }> {
  const folder = await mkdtemp(path.join(tmpdir(), 'vr-sender-'));
  const file = path.join(folder, 'requests.json');
  await writeFile(file, JSON.stringify(requests));
  return {
    send: () =>
      new Promise<SentAnswer[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['-e', SENDER, file, baseUrl], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, NODE_OPTIONS: '' },
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk));
        child.on('exit', (code) => {
          void rm(folder, { recursive: true, force: true });
          if (code === 0) resolve(JSON.parse(out) as SentAnswer[]);
          else reject(new Error(`the sender exited ${code}: ${err}`));
        });
      }),
  };
}

/** CPU this process has used, in milliseconds (utime + stime: what /proc/self/stat counts, at microsecond resolution). */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
