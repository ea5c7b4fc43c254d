/**
 * `npm run parity`: the REST interface against real FastAPI. Starts parity/fastapi_app.py (FastAPI
 * 0.142, Pydantic 2.13, email-validator 2.3, in the Python environment named by PARITY_PYTHON,
 * default `python3`) and this service on a seeded PGlite database, sends both the same corpus of
 * error-path requests (parity/corpus.ts) and compares status, the headers a client reads
 * (location, www-authenticate, allow, content type) and, for errors, the JSON body. Prints the
 * differences grouped, the deliberate ones (parity/deliberate.ts) apart, and exits non-zero only for
 * a difference that is not deliberate; writes them to parity/results/latest.json; FastAPI's answers go to
 * test/parity/fastapi-answers.json, which `npm test` replays against this service (no Python).
 *
 *   python3 -m venv .venv && .venv/bin/pip install 'fastapi==0.142.*' 'pydantic==2.13.*' 'email-validator==2.3.*' uvicorn
 *   PARITY_PYTHON=.venv/bin/python npm run parity
 *
 * E-mail addresses have an oracle of their own, a few thousand strings answered by Pydantic's
 * EmailStr (parity/email_oracle.py, test/parity/email-answers.json), and the Unicode / IDNA tables
 * of the TypeScript port come from the same Python (parity/email_unicode_data.py):
 *   PARITY_PYTHON=.venv/bin/python npm run parity:email
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, waitFor } from '../loadtest/net';
import { startTestServer } from '../test/support/server';
import { buildCorpus, type ParityRequest } from './corpus';
import { deliberateDifference } from './deliberate';
import { configureLogging } from '../src/platform/logger';

export interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: unknown;
}

export interface RecordedAnswer {
  group: string;
  name: string;
  answer: Answer;
}

export const FIXTURE = path.join(__dirname, '..', 'test', 'parity', 'fastapi-answers.json');

const COMPARED_HEADERS = ['location', 'www-authenticate', 'allow', 'content-type'];

export async function send(base: string, request: ParityRequest): Promise<Answer> {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body as BodyInit | undefined,
    redirect: 'manual',
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: compared as text
  }
  const headers = Object.fromEntries(COMPARED_HEADERS.map((name) => [name, response.headers.get(name)]));
  // Both answer JSON; charset spelling aside.
  if (headers['content-type']) headers['content-type'] = headers['content-type'].split(';')[0]!.trim();
  return { status: response.status, headers, body };
}

/** What differs between two answers, in words; empty when they match. Success bodies are not compared (the reference answers fixed ones). */
export function differences(ours: Answer, theirs: Answer): string[] {
  const found: string[] = [];
  if (ours.status !== theirs.status) found.push(`status ${ours.status} ≠ ${theirs.status}`);
  for (const name of COMPARED_HEADERS) {
    if (name === 'location' && ours.headers[name] && theirs.headers[name]) {
      // FastAPI's redirect is absolute (http://host:port/...), ours relative: compare the path and query.
      const path = (value: string) => new URL(value, 'http://x').pathname + new URL(value, 'http://x').search;
      if (path(ours.headers[name]!) !== path(theirs.headers[name]!)) found.push(`location ${ours.headers[name]} ≠ ${theirs.headers[name]}`);
      continue;
    }
    if ((ours.headers[name] ?? null) !== (theirs.headers[name] ?? null))
      found.push(`${name} ${ours.headers[name]} ≠ ${theirs.headers[name]}`);
  }
  if (theirs.status >= 400 && JSON.stringify(ours.body) !== JSON.stringify(theirs.body)) {
    found.push(`body ${JSON.stringify(ours.body).slice(0, 300)} ≠ ${JSON.stringify(theirs.body).slice(0, 300)}`);
  }
  return found;
}

async function main(): Promise<void> {
  // The comparison is the output: the service's access log would bury it.
  configureLogging({ level: process.env.LOG_LEVEL || 'warn' });
  const server = await startTestServer('pglite', { reports: 20 });
  const organizationId = server.dataset.organizations[0]!.id;
  const ids = {
    key: server.keys[0]!,
    reportId: server.dataset.reports.find((r) => r.organization_id === organizationId)!.token,
    userId: server.dataset.users.find((u) => u.organization_id === organizationId)!.id,
    dealershipId: server.dataset.dealerships.find((d) => d.organization_id === organizationId)!.id,
  };
  const port = await freePort();
  const python = process.env.PARITY_PYTHON || 'python3';
  const reference = spawn(python, ['-m', 'uvicorn', 'fastapi_app:app', '--port', String(port), '--log-level', 'warning'], {
    cwd: __dirname,
    env: {
      ...process.env,
      PARITY_API_KEY: ids.key,
      PARITY_REPORT_ID: ids.reportId,
      PARITY_USER_ID: ids.userId,
      PARITY_DEALERSHIP_ID: ids.dealershipId,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const referenceUrl = `http://127.0.0.1:${port}`;
  try {
    await waitFor('the FastAPI reference', 30_000, async () => (await fetch(`${referenceUrl}/openapi.json`)).ok);
    const corpus = buildCorpus(ids);
    const rows: { group: string; name: string; differences: string[]; deliberate?: string }[] = [];
    const recorded: RecordedAnswer[] = [];
    for (const request of corpus) {
      const [ours, theirs] = [await send(server.url, request), await send(referenceUrl, request)];
      const found = differences(ours, theirs);
      rows.push({
        group: request.group,
        name: request.name,
        differences: found,
        deliberate: deliberateDifference(request.name, found)?.reason,
      });
      // The reference's port changes each run: its redirects are recorded without their origin.
      const location = theirs.headers.location ? new URL(theirs.headers.location, 'http://x') : undefined;
      const answer = location ? { ...theirs, headers: { ...theirs.headers, location: location.pathname + location.search } } : theirs;
      recorded.push({ group: request.group, name: request.name, answer });
    }
    // FastAPI's answers, for the test that replays the corpus without Python (test/parity).
    writeFileSync(FIXTURE, `${JSON.stringify(recorded, null, 1)}\n`);
    const groups = new Map<string, { total: number; differing: number; deliberate: number; examples: string[] }>();
    for (const row of rows) {
      const group = groups.get(row.group) ?? { total: 0, differing: 0, deliberate: 0, examples: [] };
      group.total += 1;
      if (row.differences.length > 0) {
        group.differing += 1;
        if (row.deliberate) group.deliberate += 1;
        else if (group.examples.length < 3) group.examples.push(`${row.name}: ${row.differences.join('; ')}`);
      }
      groups.set(row.group, group);
    }
    const differing = rows.filter((r) => r.differences.length > 0).length;
    const undocumented = rows.filter((r) => r.differences.length > 0 && !r.deliberate).length;
    console.log(
      `\n${rows.length} requests, ${differing} answered differently from FastAPI: ${differing - undocumented} deliberate, ${undocumented} not\n`,
    );
    console.log('| group | requests | differ | of which deliberate |\n|---|---:|---:|---:|');
    for (const [name, group] of groups) console.log(`| ${name} | ${group.total} | ${group.differing} | ${group.deliberate} |`);
    const deliberate = new Map<string, string[]>();
    for (const row of rows) if (row.deliberate) deliberate.set(row.deliberate, [...(deliberate.get(row.deliberate) ?? []), row.name]);
    for (const [reason, names] of deliberate) console.log(`\ndeliberate (${names.length}): ${reason}\n  - ${names.join('\n  - ')}`);
    for (const [name, group] of groups) {
      if (group.examples.length === 0) continue;
      console.log(`\nNOT deliberate, ${name}:`);
      for (const example of group.examples) console.log(`  - ${example}`);
    }
    const dir = path.join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ requests: rows.length, differing, undocumented, rows }, null, 2));
    process.exitCode = undocumented === 0 ? 0 : 1;
  } finally {
    reference.kill();
    await server.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 2;
  });
}
