/**
 * Child process of bench/abuse.ts: one load generator (autocannon), run apart from the others so
 * that a busy attacker's client cannot delay the timing of the victim's responses (in one process
 * the victim's latencies included the time the event loop spent on the attackers' ~600 responses
 * a second). Receives its clients over IPC, answers with each one's statuses and latencies and its
 * own CPU time.
 */
import autocannon from 'autocannon';

export interface ClientSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** bodies sent in turn by the client's connections (instead of `body`) */
  bodies?: string[];
  connections: number;
  /** requests per second over all connections; absent: as fast as answers come */
  overallRate?: number;
}

export interface ClientResult {
  latencies: number[];
  /** when each answer came, in ms since the run started (the same order as `latencies`) */
  answeredAt: number[];
  statuses: Record<number, number>;
}

export interface LoadResult {
  clients: ClientResult[];
  /** user + system CPU of this load generator during the run */
  cpuMs: number;
}

function run(spec: ClientSpec, duration: number): Promise<ClientResult> {
  const result: ClientResult = { latencies: [], answeredAt: [], statuses: {} };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const { bodies, ...options } = spec;
    let next = 0;
    const requests = bodies?.length
      ? [{ setupRequest: (request: object) => ({ ...request, body: bodies[next++ % bodies.length] }) }]
      : undefined;
    const instance = autocannon({ ...options, duration, ...(requests ? { requests } : {}) }, (error) =>
      error ? reject(error) : resolve(result),
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {
      result.latencies.push(time);
      result.answeredAt.push(performance.now() - started);
      result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    });
  });
}

// Ready once loaded: bench/abuse.ts starts every client together only when all are, so that one
// client's start-up (tsx, autocannon) does not compete with another's first timed requests.
process.send!({ ready: true });
process.once('message', (message: { clients: ClientSpec[]; duration: number }) => {
  const before = process.cpuUsage();
  void Promise.all(message.clients.map((spec) => run(spec, message.duration))).then(
    (clients) => {
      const cpu = process.cpuUsage(before);
      const result: LoadResult = { clients, cpuMs: (cpu.user + cpu.system) / 1000 };
      process.send!(result, () => process.exit(0));
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
