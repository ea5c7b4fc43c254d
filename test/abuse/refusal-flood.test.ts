/**
 * A refusal flood leaves nothing behind (issue 45, section 3): 2,000 connections presenting wrong
 * keys with 95 kB lead bodies, refusals held as in production (REFUSAL_DELAY_MS 500, paced per
 * address): 20 s after the flood the process's open descriptors are back within 10% of idle. Each
 * refusal is answered before its body is read and closes its connection (nothing kept alive for
 * KEEP_ALIVE_TIMEOUT_MS, no body read to be thrown away). RSS within 20% after 60 s is measured by
 * hand (docs/performance.md): too long for CI. The 2,000 connections arrive at once: past the
 * listen backlog (LISTEN_BACKLOG), a busy machine reset some of them with no answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { LINGER_IDLE_MS, LINGER_MAX_MS } from '../../src/platform/http/unread-bodies';
import { createRateLimiter, type RateLimits } from '../../src/platform/rate-limit/rate-limiter';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

const CONNECTIONS = 2_000;
const BODY_BYTES = 95_000;

/**
 * The child: opens CONNECTIONS raw sockets, each sends one wrong-key lead of BODY_BYTES and then
 * keeps its socket open, as a keep-alive client does; prints the statuses once every socket has
 * its answer (or was closed), and stays until it is killed.
 */
const FLOOD = `
const net = require('node:net');
const [port, connections, bodyBytes] = process.argv.slice(1).map(Number);
const body = JSON.stringify({ dealership: '00000000-0000-4000-8000-000000000000', name: 'x'.repeat(bodyBytes) });
const statuses = {};
let done = 0;
for (let i = 0; i < connections; i += 1) {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  let counted = false;
  const count = () => {
    if (counted) return;
    counted = true;
    const status = /^HTTP\\/1\\.1 (\\d+)/.exec(answer)?.[1] ?? 'none';
    statuses[status] = (statuses[status] ?? 0) + 1;
    if ((done += 1) === connections) process.stdout.write(JSON.stringify(statuses));
  };
  socket.on('data', (chunk) => {
    answer += chunk;
    if (/\\r\\n\\r\\n/.test(answer)) count();
  });
  socket.on('error', () => {});
  socket.on('close', count);
  socket.write(
    'POST /public/reports/create-lead HTTP/1.1\\r\\nhost: x\\r\\ncontent-type: application/json\\r\\n' +
      'x-api-key: vr_live_' + String(i % 40).padStart(32, 'w') + '\\r\\nx-forwarded-for: 198.51.100.' + (i % 40) + '\\r\\n' +
      'content-length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body,
  );
}
setInterval(() => {}, 1000);
`;

const openDescriptors = () => readdirSync('/proc/self/fd').length;

describe('a flood of refused connections', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('postgres', {
      reports: 5,
      config: {
        trustProxy: 'loopback',
        refusalDelayMs: 500,
        rateLimits: { requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 20 },
      },
    });
  });
  afterAll(() => server.close());

  it('2,000 wrong-key connections with 95 kB bodies: descriptors back within 10% of idle 20 s later', async () => {
    const idle = openDescriptors();
    const idleRss = process.memoryUsage().rss;
    const port = Number(new URL(server.url).port);
    const child = spawn(process.execPath, ['-e', FLOOD, String(port), String(CONNECTIONS), String(BODY_BYTES)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, openDescriptors())), 100);
    const started = performance.now();
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await waitFor(() => out.length > 0, 60_000, 100);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    const floodMs = performance.now() - started;
    const statuses = JSON.parse(out) as Record<string, number>;
    const afterFlood = openDescriptors();
    // The clients stay connected: what closes their connections is the server.
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    clearInterval(sampler);
    const after20s = openDescriptors();
    const rss20s = process.memoryUsage().rss;
    child.kill('SIGKILL');
    await exited;
    console.log(
      `flood of ${CONNECTIONS} x ${BODY_BYTES} B: ${floodMs.toFixed(0)} ms, statuses ${JSON.stringify(statuses)}; descriptors idle ${idle}, ` +
        `peak ${peak}, at the flood's end ${afterFlood}, 20 s later ${after20s}; RSS idle ${(idleRss / 1e6).toFixed(0)} MB, 20 s later ${(rss20s / 1e6).toFixed(0)} MB`,
    );
    // Every connection got its refusal: 401, then 429 once its address's keyless budget is spent.
    expect(Object.keys(statuses).sort()).toEqual(['401', '429']);
    expect(Object.entries(statuses).filter(([status]) => status !== '401' && status !== '429')).toEqual([]);
    expect(after20s).toBeLessThanOrEqual(Math.ceil(idle * 1.1));
  }, 120_000);
});

/**
 * A client that sends its whole body before it reads (Python's http.client, curl without
 * Expect): refused before its body was read, it must still find its answer once it has sent the
 * body, however slowly that arrives. Closed while the client is still sending, the connection is
 * reset and the answer, unread, is lost with it.
 */
describe('a refused body is read as long as its client sends it', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('postgres', { reports: 5 });
  });
  afterAll(() => server.close());

  interface SlowLead {
    answer: string;
    error?: string;
    /** ms from the connection to its last bytes sent (NaN: not all were sent) */
    sendingMs: number;
    /** when its last bytes were sent (performance.now()) */
    sentAt: number;
    /** ms from the connection to its close (NaN: still open on the client's side) */
    openMs: number;
    localPort: number;
  }

  /**
   * Sends the headers of a lead of BODY_BYTES, then `sendBytes` of its body `chunkBytes` at a time,
   * one part every `everyMs` (a slow uplink), and only then reads its answer. Its side stays open
   * when the server's FIN arrives: settles once it has read the answer to its end, or is reset.
   */
  const sendSlowlyThenRead = (options: { chunkBytes: number; everyMs: number; sendBytes?: number }) =>
    new Promise<SlowLead>((resolve) => {
      const body = JSON.stringify({ dealership: '00000000-0000-4000-8000-000000000000', name: 'x'.repeat(BODY_BYTES) });
      const sent = body.slice(0, options.sendBytes ?? body.length);
      const socket = connect({ port: Number(new URL(server.url).port), host: '127.0.0.1', allowHalfOpen: true });
      socket.pause();
      let answer = '';
      let error: string | undefined;
      const started = performance.now();
      let sentAt = Number.NaN;
      const settle = (openMs: number) =>
        resolve({ answer, error, sendingMs: sentAt - started, sentAt, openMs, localPort: socket.localPort ?? 0 });
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('end', () => settle(Number.NaN));
      socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
      socket.on('close', () => settle(performance.now() - started));
      socket.write(
        'POST /public/reports/create-lead HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
          `x-api-key: vr_live_${'w'.repeat(32)}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      let offset = 0;
      const sendNext = () => {
        if (socket.destroyed) return;
        const part = sent.slice(offset, (offset += options.chunkBytes));
        if (offset < sent.length) return socket.write(part, () => setTimeout(sendNext, options.everyMs));
        socket.write(part, () => {
          sentAt = performance.now();
          socket.resume();
        });
      };
      sendNext();
    });

  /**
   * Whether the server process still holds its side of the connection from `clientPort`: closed
   * by the server after the client's side, a connection stays listed (FIN_WAIT2) without an inode.
   */
  const serverHolds = (clientPort: number) => {
    const serverPort = Number(new URL(server.url).port);
    return readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .some(
        ([, local, remote, , , , , , , inode]) =>
          Number.parseInt(local?.split(':')[1] ?? '', 16) === serverPort &&
          Number.parseInt(remote?.split(':')[1] ?? '', 16) === clientPort &&
          inode !== '0',
      );
  };
  /** ms from `since` until the server no longer holds the connection from `clientPort`. */
  const serverClosesAfter = async (clientPort: number, since: number) => {
    await waitFor(() => !serverHolds(clientPort), 4 * LINGER_IDLE_MS, 20);
    return performance.now() - since;
  };
  const expectRefused = (lead: SlowLead) => {
    expect(lead.error).toBeUndefined();
    expect(lead.answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(lead.answer.toLowerCase()).toContain('connection: close');
  };

  it('a body sent slowly, for longer than the linger waits on a silent client: answered 401, closed once it is all read', async () => {
    const lead = await sendSlowlyThenRead({ chunkBytes: 2_000, everyMs: 150 });
    expect(lead.sendingMs).toBeGreaterThan(2 * LINGER_IDLE_MS);
    expectRefused(lead);
    expect(await serverClosesAfter(lead.localPort, lead.sentAt)).toBeLessThan(2 * LINGER_IDLE_MS + 500);
  }, 30_000);

  it('a client silent before its body ends: answered 401, closed once it has been silent for LINGER_IDLE_MS', async () => {
    const lead = await sendSlowlyThenRead({ chunkBytes: 2_000, everyMs: 150, sendBytes: 20_000 });
    expectRefused(lead);
    expect(serverHolds(lead.localPort)).toBe(true);
    const closedAfterMs = await serverClosesAfter(lead.localPort, lead.sentAt);
    expect(closedAfterMs).toBeGreaterThanOrEqual(LINGER_IDLE_MS - 50);
    expect(closedAfterMs).toBeLessThan(2 * LINGER_IDLE_MS + 500);
  }, 30_000);

  it(
    'a client that never stops sending: closed LINGER_MAX_MS after its answer',
    async () => {
      const lead = await sendSlowlyThenRead({
        chunkBytes: 100,
        everyMs: LINGER_IDLE_MS / 4,
        // more parts than the linger's longest wait lets it send
        sendBytes: 100 * Math.ceil((2 * LINGER_MAX_MS) / (LINGER_IDLE_MS / 4)),
      });
      // Closed while it was still sending: the reset it met lost its answer.
      expect(lead.sendingMs).toBeNaN();
      expect(['ECONNRESET', 'EPIPE']).toContain(lead.error);
      expect(lead.openMs).toBeGreaterThanOrEqual(LINGER_MAX_MS);
      expect(lead.openMs).toBeLessThan(LINGER_MAX_MS + LINGER_IDLE_MS + 2_000);
    },
    2 * LINGER_MAX_MS,
  );
});

describe('a held refusal keeps no body', () => {
  // A budget of one page a second, and holds longer than that second: a request held for the
  // spent budget finds it renewed when its hold ends.
  const HOLD_MS = 1_500;
  let server: TestServer;
  let rateLimits: RateLimits;
  beforeAll(async () => {
    const generous = { points: 1_000_000, windowSeconds: 60 };
    rateLimits = {
      requests: createRateLimiter({ name: 'requests', points: 2, windowSeconds: 1 }),
      leads: createRateLimiter({ name: 'leads', ...generous }),
      anonymous: createRateLimiter({ name: 'anonymous', ...generous }),
      close: async () => undefined,
    };
    server = await startTestServer('postgres', { reports: 5, rateLimits, config: { refusalDelayMs: HOLD_MS } });
  });
  afterAll(() => server.close());

  const lead = (body: string) =>
    fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
      body,
    });
  const spendBudget = async () => {
    // A page of dealerships is the budget's two points: the organization is known spent for the rest of the second.
    const page = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': server.keys[0]! } });
    expect(page.status).toBe(200);
    await page.arrayBuffer();
    // Its points are charged once its work is done, which may be after its answer: known spent from then on.
    await waitFor(() => rateLimits.requests.refusal(server.dataset.organizations[0]!.id) !== undefined, 1_000, 5);
  };
  /**
   * The budget spent, then `send`, until its request was held first: that needs the instance to
   * trust its key cache, which it does once it hears key changes (a LISTEN connected shortly after
   * it starts); until then the refusal is held in the chain and answered 429, as decided on arrival.
   */
  const heldFirst = async (send: () => Promise<Response>): Promise<{ answer: Response; ms: number }> => {
    for (let attempt = 1; ; attempt += 1) {
      // The window of the previous attempt ends.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await spendBudget();
      const started = performance.now();
      const answer = await send();
      if (answer.status !== 429 || attempt === 5) return { answer, ms: performance.now() - started };
      await answer.arrayBuffer();
    }
  };

  it('drops a long body during the hold, and asks for the request again when its refusal no longer holds', async () => {
    const { answer, ms } = await heldFirst(() =>
      lead(JSON.stringify({ dealership: '00000000-0000-4000-8000-000000000000', name: 'x'.repeat(20_000) })),
    );
    expect(ms).toBeGreaterThanOrEqual(HOLD_MS - 50);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.json()).toEqual({ detail: 'The request waited and its body was not kept: send it again' });
  });

  it('keeps a short body, which a refusal may read: served after its hold like any request', async () => {
    const { answer, ms } = await heldFirst(() =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      }),
    );
    expect(ms).toBeGreaterThanOrEqual(HOLD_MS - 50);
    // Served once its hold ended (the budget renewed): its document was read.
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
