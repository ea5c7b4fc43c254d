/**
 * The mixed traffic: which request each client connection sends next (report lists with filters,
 * fetch-one, users, dealerships, a GraphQL page, lead creation), and a client-side record of every
 * answer: outcome per kind, latency, errors per second, and a ledger of every lead requested with
 * its Idempotency-Key, body and answer, for the consistency check.
 */
import { SeededRandom } from '../src/seed/vehicles';

export interface OrganizationFixture {
  name: string;
  apiKey: string;
  dealershipIds: string[];
  reportTokens: string[];
  userIds: string[];
  brands: string[];
  searchTerms: string[];
}

export type RequestKind =
  'list reports' | 'fetch report' | 'list users' | 'fetch user' | 'list dealerships' | 'graphql page' | 'create lead';

/** Share of each kind in the mix (out of 100). */
export const MIX: readonly (readonly [RequestKind, number])[] = [
  ['list reports', 28],
  ['fetch report', 15],
  ['list users', 8],
  ['fetch user', 5],
  ['list dealerships', 7],
  ['graphql page', 15],
  ['create lead', 22],
];

export interface PlannedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export type Channel = 'email' | 'sms';

export interface LeadAttempt {
  seq: number;
  organization: number;
  idempotencyKey: string;
  /** the exact body sent, so a retry sends the same bytes */
  body: string;
  channels: Channel[];
  /** the first answer; absent: no answer (timeout, connection lost, run ended) */
  status?: number;
  /** seconds since the traffic started: when the request was sent and when it was answered */
  sentAt?: number;
  answeredAt?: number;
  outcome?: string;
  token?: string;
}

const GRAPHQL_PAGE = JSON.stringify({
  query: `query LoadTestPage($limit: Int!, $offset: Int!) {
    reports(limit: $limit, offset: $offset) {
      total
      items { token created_at type data { vehicle { vin license_number } } dealership { id name } profile { id name } }
    }
  }`,
  variables: { limit: 20, offset: 0 },
});

const LANGUAGES = ['fr', 'en', 'es', 'de', 'it', 'nl', 'pt'];

/**
 * The label of an answer: the status, who made it when it is not the application, and for GraphQL
 * a 200 that carries errors (GraphQL may answer a failure with 200).
 */
export function outcomeOf(status: number, headers: Record<string, string>, body: string): string {
  if (headers['x-lb-error']) return `${status} from load balancer (${headers['x-lb-error']})`;
  if (status === 503) return headers['retry-after'] !== undefined ? '503 with Retry-After' : '503 without Retry-After';
  if (status === 200 && body.startsWith('{"errors"')) {
    const code = (JSON.parse(body) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;
    return `200 with GraphQL errors (${code ?? 'no code'})`;
  }
  return String(status);
}

/** An answer that means the request failed, whatever its status class. */
export const isFailure = (status: number, outcome: string) => status >= 500 || outcome.includes('GraphQL errors');

function lowerCaseHeaders(headers: Record<string, string | string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v]));
}

interface InFlight {
  kind: RequestKind;
  /** seconds since the traffic started */
  sentAt: number;
  lead?: LeadAttempt;
  /** set when answered */
  outcome?: string;
}

export class Traffic {
  private readonly random = new SeededRandom(20261122);
  private nextId = 0;
  private leadSeq = 0;
  private readonly inFlight = new Map<number, InFlight>();
  private lastAnswered: InFlight | undefined;
  readonly leads: LeadAttempt[] = [];
  /** kind → outcome label → count */
  readonly outcomes = new Map<RequestKind, Map<string, number>>();
  /** kind → latencies (ms) of answered requests */
  readonly latencies = new Map<RequestKind, number[]>();
  /** outcome label → latencies (ms): how fast each kind of failure was */
  readonly latenciesByOutcome = new Map<string, number[]>();
  /** client-side errors (no HTTP answer): "timeout", "ECONNRESET", … → count */
  readonly clientErrors = new Map<string, number>();
  /** per second of the run: answers 2xx-4xx, answers 5xx, client errors */
  readonly perSecond: { ok: number; failed: number; clientErrors: number }[] = [];
  requestsSent = 0;

  constructor(
    private readonly organizations: OrganizationFixture[],
    private readonly runId: string,
    /** seconds since the traffic started */
    private readonly clock: () => number,
  ) {}

  /** The next request of the mix; `id` comes back with its answer. */
  next(): { id: number; request: PlannedRequest } {
    const kind = this.random.weighted(MIX as [RequestKind, number][]);
    const organization = this.random.bool(0.6) ? 0 : 1;
    const org = this.organizations[organization]!;
    const headers: Record<string, string> = { 'x-api-key': org.apiKey, accept: 'application/json' };
    const id = (this.nextId += 1);
    const entry: InFlight = { kind, sentAt: this.clock() };
    let request: PlannedRequest;
    switch (kind) {
      case 'list reports':
        request = { method: 'GET', path: `/public/reports/?${this.reportFilters(org)}`, headers };
        break;
      case 'fetch report':
        request = { method: 'GET', path: `/public/reports/${this.random.pick(org.reportTokens)}`, headers };
        break;
      case 'list users':
        request = {
          method: 'GET',
          path: this.random.bool(0.5) ? '/public/users/?limit=20' : '/public/users/?order_by=-created_at&limit=10',
          headers,
        };
        break;
      case 'fetch user':
        request = { method: 'GET', path: `/public/users/${this.random.pick(org.userIds)}`, headers };
        break;
      case 'list dealerships':
        request = { method: 'GET', path: '/public/dealerships/?limit=20', headers };
        break;
      case 'graphql page':
        request = { method: 'POST', path: '/graphql', headers: { ...headers, 'content-type': 'application/json' }, body: GRAPHQL_PAGE };
        break;
      case 'create lead': {
        const lead = this.newLead(organization);
        entry.lead = lead;
        request = {
          method: 'POST',
          path: '/public/reports/create-lead',
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': lead.idempotencyKey },
          body: lead.body,
        };
        break;
      }
    }
    this.inFlight.set(id, entry);
    this.requestsSent += 1;
    return { id, request };
  }

  private reportFilters(org: OrganizationFixture): string {
    const filters: Record<string, string>[] = [
      { limit: '20' },
      { limit: '50', order_by: '-updated_at' },
      { type: 'remote', limit: '20' },
      { brand: this.random.pick(org.brands), limit: '20' },
      { search: this.random.pick(org.searchTerms), limit: '20' },
      { created_at__gte: '2026-06-01', created_at__lte: '2026-09-30', limit: '20' },
      { dealership_id: this.random.pick(org.dealershipIds), limit: '20' },
      { state__contains: JSON.stringify({ folder_sold: { status: true } }), limit: '20' },
      { valid: 'false', limit: '20' },
      { offset: '500', limit: '20' },
    ];
    return new URLSearchParams(this.random.pick(filters)).toString();
  }

  private newLead(organization: number): LeadAttempt {
    const seq = (this.leadSeq += 1);
    const org = this.organizations[organization]!;
    // 40 % e-mail only, 20 % SMS only, 20 % both, 20 % neither.
    const roll = this.random.next();
    const channels: Channel[] = roll < 0.4 ? ['email'] : roll < 0.6 ? ['sms'] : roll < 0.8 ? ['email', 'sms'] : [];
    const body = {
      dealership: this.random.pick(org.dealershipIds),
      name: `Load Test ${seq}`,
      // The folder name ties a report in the database to this request (reports.folder_name).
      folder_name: `LT-${this.runId}-${seq}`,
      email: `lt.${this.runId}.${seq}@example.com`,
      phone: `+3361${String(seq % 10_000_000).padStart(7, '0')}`,
      lang: this.random.pick(LANGUAGES),
      sendEmail: channels.includes('email'),
      sendPhone: channels.includes('sms'),
    };
    const lead: LeadAttempt = { seq, organization, idempotencyKey: `lt-${this.runId}-${seq}`, body: JSON.stringify(body), channels };
    this.leads.push(lead);
    return lead;
  }

  /** autocannon's onResponse: called just before its 'response' event for the same request. */
  answered(id: number, status: number, body: string, rawHeaders: Record<string, string | string[]>): void {
    const entry = this.inFlight.get(id);
    this.lastAnswered = entry;
    if (!entry) return;
    this.inFlight.delete(id);
    const outcome = outcomeOf(status, lowerCaseHeaders(rawHeaders), body);
    const byOutcome = this.outcomes.get(entry.kind) ?? new Map<string, number>();
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    this.outcomes.set(entry.kind, byOutcome);
    const second = this.second();
    if (isFailure(status, outcome)) second.failed += 1;
    else second.ok += 1;
    if (entry.lead) {
      entry.lead.status = status;
      entry.lead.outcome = outcome;
      entry.lead.sentAt = entry.sentAt;
      entry.lead.answeredAt = this.clock();
      if (status === 201) entry.lead.token = (JSON.parse(body) as { token: string }).token;
    }
    entry.outcome = outcome;
  }

  /** autocannon's 'response' event: the latency it measured for the request just answered. */
  measured(responseTimeMs: number): void {
    const entry = this.lastAnswered;
    if (!entry) return;
    this.lastAnswered = undefined;
    push(this.latencies, entry.kind, responseTimeMs);
    if (entry.outcome) push(this.latenciesByOutcome, entry.outcome, responseTimeMs);
  }

  /** autocannon's 'reqError' event: a request that got no HTTP answer. */
  clientError(error: Error & { code?: string }): void {
    const kind = error.message === 'request timed out' ? 'timeout' : (error.code ?? error.message);
    this.clientErrors.set(kind, (this.clientErrors.get(kind) ?? 0) + 1);
    this.second().clientErrors += 1;
  }

  /**
   * Requests without an answer, by kind: `abandoned` were given up by the client (timeout,
   * connection lost) during the run; `cutAtEnd` were sent less than a client timeout before the
   * traffic stopped, and may simply have been cut off by the stop.
   */
  unanswered(
    endedAt: number,
    timeoutSeconds: number,
  ): { abandoned: Record<string, number>; cutAtEnd: Record<string, number>; abandonedAt: number[] } {
    const abandoned: Record<string, number> = {};
    const cutAtEnd: Record<string, number> = {};
    const abandonedAt: number[] = [];
    for (const entry of this.inFlight.values()) {
      const cut = entry.sentAt >= endedAt - timeoutSeconds;
      const bucket = cut ? cutAtEnd : abandoned;
      bucket[entry.kind] = (bucket[entry.kind] ?? 0) + 1;
      if (!cut) abandonedAt.push(entry.sentAt);
    }
    return { abandoned, cutAtEnd, abandonedAt };
  }

  private second() {
    const index = Math.max(0, Math.floor(this.clock()));
    while (this.perSecond.length <= index) this.perSecond.push({ ok: 0, failed: 0, clientErrors: 0 });
    return this.perSecond[index]!;
  }
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
