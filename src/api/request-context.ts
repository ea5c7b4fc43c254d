/**
 * What both interfaces do for every request before any work: authenticate (throttling the
 * requests that come without a valid key by client address), charge the organization's budget,
 * and give the features their request context.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiKeyAuthenticator } from '../features/auth/api-key-cache';
import type { IncomingMessage } from 'node:http';
import { presentKey, type ApiKeyPrincipal, type PresentedKey } from '../features/auth/api-keys';
import type { RequestContext } from '../features/context';
import { createLoaders, type Loaders } from '../features/loaders';
import type { Database } from '../platform/db/database';
import { limitStatements, Semaphore } from '../platform/db/statement-limiter';
import type { Logger } from '../platform/logger';
import type { ConcurrencyLimiter } from '../platform/rate-limit/concurrency-limiter';
import type { RateLimitDecision, RateLimitKind, RateLimits } from '../platform/rate-limit/rate-limiter';
import { RefusalPacer } from '../platform/rate-limit/refusal-pacer';
import { rateLimited, tooManyConcurrentRequests, type AppError } from '../shared/errors';
import { CursorCodec, DEFAULT_CURSOR_SECRET } from '../shared/cursor';
import { AnswerBudget, DEFAULT_MAX_ANSWER_VALUES } from '../shared/answer-budget';

/** At most this many SQL statements of one request run at once (the pool serves everyone). */
export const STATEMENTS_IN_FLIGHT_PER_REQUEST = 3;

/** What every request of either interface needs. */
export interface ApiServices {
  db: Database;
  /** Keys resolved from memory while revocations are heard (features/auth/api-key-cache.ts). */
  apiKeys: ApiKeyAuthenticator;
  rateLimits: RateLimits;
  /** Requests of one organization in progress at once in this process (ORG_CONCURRENT_REQUESTS). */
  organizationSlots: ConcurrencyLimiter;
  /** Told of each refusal answered at admission (metrics). */
  onRefused?: (kind: RateLimitKind) => void;
  /** Base of the report links sent to clients. */
  appBaseUrl: string;
  /** Signs and reads the lists' cursors (default: the unset CURSOR_SECRET's public key). */
  cursors?: CursorCodec;
  /** Webhook receivers on private addresses allowed (never in production: SSRF). */
  webhooksAllowPrivate?: boolean;
  /** Values one answer may hold (MAX_ANSWER_VALUES; default DEFAULT_MAX_ANSWER_VALUES). */
  maxAnswerValues?: number;
  /** Milliseconds a repeated refusal (wrong key, spent budget) is held before it is answered. */
  refusalDelayMs?: number;
  /** Spaces each payer's held refusals (createRefusalPacer); absent: each hold is exactly its length. */
  refusalPacer?: RefusalPacer;
}

/**
 * Holds a refusal that a client would otherwise collect as fast as it can ask: a wrong key, an
 * address or organization whose budget is spent. Answering is cheap (no parsing, no SQL), but a
 * client that ignores Retry-After turns cheap answers into a full core (measured: 4 clients on
 * loopback, ~2,500 refusals a second, the other tenants' p95 doubled). Held, each connection gets
 * one refusal per delay, for the price of a timer; the proxy bounds connections per address, and
 * the pacer spaces one payer's answers (platform/rate-limit/refusal-pacer.ts).
 */
function holdRefusal(services: ApiServices, payer: string, decision?: RateLimitDecision): Promise<void> | undefined {
  const ms = refusalHoldMs(services, payer, decision);
  return ms > 0 ? sleep(ms) : undefined;
}

/** How long to hold a refusal of `payer` (0: not held), from its decision and the pacer's line. */
export function refusalHoldMs(services: ApiServices, payer: string, decision?: RateLimitDecision): number {
  if (!services.refusalDelayMs) return 0;
  // An address that goes on asking after its refusals is held longer: twice as long for each
  // budget more it asks for, up to MAX_REFUSAL_HOLD times the delay. 2,000 connections without a
  // key collected ~2,000 answers a second held 0.5 s (a core of this machine); held 16 s, 125.
  const overdrawn = Math.max(1, decision?.overdrawn ?? 1);
  const holdMs = services.refusalDelayMs * Math.min(MAX_REFUSAL_HOLD, 2 ** (overdrawn - 1));
  return services.refusalPacer ? services.refusalPacer.holdMs(payer, holdMs) : holdMs;
}

/** Spaces the held refusals of each payer (an address, an organization): one per REFUSAL_DELAY_MS, every hold spread. */
export function createRefusalPacer(refusalDelayMs: number): RefusalPacer {
  return new RefusalPacer({ spacingMs: refusalDelayMs, maxHoldMs: refusalDelayMs * MAX_REFUSAL_HOLD });
}

/** The longest hold, in multiples of REFUSAL_DELAY_MS: reached by an address asking for 6 times its budget. */
export const MAX_REFUSAL_HOLD = 32;

export type Authentication =
  | { status: 'authenticated'; principal: ApiKeyPrincipal }
  | { status: 'missing' }
  | { status: 'invalid' }
  /** too many requests without a valid key from this address: not even looked up */
  | { status: 'throttled'; decision: RateLimitDecision };

const presentedKeys = new WeakMap<IncomingMessage, PresentedKey | null>();

/** The request's `x-api-key`, digested once however many checks read it (each digest is a SHA-256). */
export function presentedKeyOf(req: IncomingMessage): PresentedKey | undefined {
  let presented = presentedKeys.get(req);
  if (presented === undefined) presentedKeys.set(req, (presented = presentKey(req.headers['x-api-key']) ?? null));
  return presented ?? undefined;
}

/**
 * The key of the request, or why there is none. Requests without a valid key spend their client
 * address's budget, and once it is spent a presented key is not even looked up: failed attempts
 * cost the database nothing more.
 */
export async function authenticate(
  services: ApiServices,
  presented: PresentedKey | undefined,
  clientAddress: string,
  /** the request was held already, before any work (api/known-refusals.ts) */
  held = false,
): Promise<Authentication> {
  const hold = (decision: RateLimitDecision) => (held ? undefined : holdRefusal(services, clientAddress, decision));
  const anonymous = services.rateLimits.anonymous;
  if (!presented) {
    const decision = await anonymous.consume(clientAddress);
    if (decision.allowed) return { status: 'missing' };
    await hold(decision);
    return { status: 'throttled', decision };
  }
  if (await anonymous.isExhausted(clientAddress)) {
    // A key this process already knows valid costs no lookup: a tenant behind the same address
    // (NAT, a shared proxy) as someone spending the keyless budget is still served.
    if (services.apiKeys.known(presented)) {
      const principal = await services.apiKeys.authenticate(presented);
      if (principal) return { status: 'authenticated', principal };
    }
    const decision = await anonymous.consume(clientAddress);
    await hold(decision);
    return { status: 'throttled', decision };
  }
  const principal = await services.apiKeys.authenticate(presented);
  if (principal) return { status: 'authenticated', principal };
  const decision = await anonymous.consume(clientAddress);
  await hold(decision);
  return decision.allowed ? { status: 'invalid' } : { status: 'throttled', decision };
}

/** The seconds a request refused for want of a slot is told to wait: slots free up in milliseconds. */
export const SLOT_RETRY_AFTER_SECONDS = 1;

export type Admission =
  | { admitted: true; release: () => void }
  /** `error` is the 429 to answer; absent when the client left while waiting (nothing to answer) */
  | { admitted: false; error?: AppError; headers: Record<string, string> };

/**
 * What an authenticated request of either interface passes before any work (parsing, pricing,
 * SQL): its organization's budget not already known to be spent, then one of its slots. A spent
 * budget is answered from this instance's memory of its last refusal, before the document is even
 * parsed: an organization at full budget hammering the API costs no SQL once its key is in the
 * key cache (features/auth/api-key-cache.ts), and nothing more. The caller releases the slot when the request's work ends (not when the client
 * disconnects: the work goes on, and a client aborting each request must not run more at once).
 */
export async function admitOrganization(
  services: ApiServices,
  principal: ApiKeyPrincipal | null,
  clientGone: AbortSignal,
  /** the request was held already, before any work (api/known-refusals.ts) */
  held = false,
): Promise<Admission> {
  if (!principal) return takeSlot(services, KEYLESS_SLOTS, clientGone);
  const spent = await spentBudgetRefusal(services, principal, held);
  if (spent) return spent;
  const slot = await takeSlot(services, principal.organizationId, clientGone);
  // Spent while this request waited for its slot (the requests ahead of it paid the last points):
  // refused now, before its document is parsed, rather than after.
  if (!slot.admitted) return slot;
  const spentSince = await spentBudgetRefusal(services, principal, true);
  if (!spentSince) return slot;
  slot.release();
  return spentSince;
}

/**
 * The 429 of an organization whose budget this instance knows to be spent (held first, unless the
 * request was held already), or undefined. Asked before a request's body is read (both interfaces'
 * authentication) and again at admission: a refused request costs no parsing whatever it sends.
 */
export async function spentBudgetRefusal(
  services: ApiServices,
  principal: ApiKeyPrincipal,
  held: boolean,
): Promise<Extract<Admission, { admitted: false }> | undefined> {
  const spent = services.rateLimits.requests.refusal(principal.organizationId);
  if (!spent) return undefined;
  services.onRefused?.('requests');
  if (!held) await holdRefusal(services, principal.organizationId);
  return { admitted: false, error: rateLimited(spent.retryAfterSeconds), headers: spent.headers };
}

/**
 * The slots keyless requests (introspection) share on this instance, as if they were one
 * organization: whoever sends them, they cannot take more of the process than one tenant.
 */
export const KEYLESS_SLOTS = 'keyless';

async function takeSlot(services: ApiServices, holder: string, clientGone: AbortSignal): Promise<Admission> {
  const slot = await services.organizationSlots.acquire(holder, clientGone);
  if (slot.admitted) return slot;
  if (slot.reason === 'aborted') return { admitted: false, headers: {} };
  services.onRefused?.('concurrency');
  return {
    admitted: false,
    error: tooManyConcurrentRequests(services.organizationSlots.settings.limit, SLOT_RETRY_AFTER_SECONDS),
    headers: {},
  };
}

/** Aborted when the response is closed before it was sent: the client disconnected. */
export function clientGoneSignal(response: {
  once(event: 'close', listener: () => void): unknown;
  writableFinished: boolean;
}): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Charges work that was refused (a document that did not parse, validate or fit the limits) or
 * that no key pays for: to the key's organization, or to the client's address when there is no
 * key. Refusing a large document costs CPU too; whoever sends them pays for it.
 */
export async function chargeWork(
  services: ApiServices,
  payer: { principal: ApiKeyPrincipal | null; clientAddress?: string },
  points: number,
): Promise<RateLimitDecision | undefined> {
  const whole = Math.max(1, Math.ceil(points));
  if (payer.principal) return services.rateLimits.requests.consume(payer.principal.organizationId, whole);
  if (payer.clientAddress !== undefined) return services.rateLimits.anonymous.consume(payer.clientAddress, whole);
  return undefined;
}

/** Takes `points` (the SQL statements the request may run) from the organization's budget. */
export function chargeRequest(services: ApiServices, principal: ApiKeyPrincipal, points: number): Promise<RateLimitDecision> {
  return services.rateLimits.requests.consume(principal.organizationId, Math.max(1, Math.ceil(points)));
}

let defaultCursors: CursorCodec | undefined;

/**
 * The request's logger is made when a line is first written (most requests write none), and its
 * DataLoaders when a field first loads through them (a report written by PostgreSQL uses none).
 * Apollo copies the context for each operation (`Object.assign` onto the same prototype), which
 * would call an own getter: on the prototype, the getters stay lazy in the copy.
 */
const LAZY_MEMBERS = {
  get log(): Logger {
    const self = this as unknown as { makeLog: () => Logger; madeLog?: Logger };
    return (self.madeLog ??= self.makeLog());
  },
  get loaders(): Loaders {
    const self = this as unknown as { makeLoaders: () => Loaders; madeLoaders?: Loaders };
    return (self.madeLoaders ??= self.makeLoaders());
  },
};

export function createRequestContext(
  services: ApiServices,
  request: {
    principal: ApiKeyPrincipal | null;
    requestId?: string;
    /** the request's logger, or what makes it when a line is first written (most requests write none) */
    log: Logger | (() => Logger);
    idempotencyKey?: string;
    clientAddress?: string;
  },
): RequestContext {
  // One budget of statements in flight, whichever server they go to.
  const semaphore = new Semaphore(STATEMENTS_IN_FLIGHT_PER_REQUEST);
  const prisma = limitStatements(services.db.prisma, semaphore);
  // Lists and fetches read from a replica when one is usable; lead creation, idempotency and
  // quota (db.prisma) stay on the primary. A fetch by id that misses on the replica asks the
  // primary (read-your-writes: a report just created is found at once).
  const reader = services.db.reader();
  const reads = reader.prisma === services.db.prisma ? prisma : limitStatements(reader.prisma, semaphore);
  const primaryOnMiss = reader.primaryOnMiss && limitStatements(reader.primaryOnMiss, semaphore);
  const requestId = request.requestId ?? randomUUID();
  const log = request.log;
  return Object.assign(Object.create(LAZY_MEMBERS) as typeof LAZY_MEMBERS, {
    makeLog: typeof log === 'function' ? log : () => log,
    makeLoaders: () => createLoaders(reads, request.principal?.organizationId ?? null, primaryOnMiss),
    db: { ...services.db, prisma },
    reads,
    primaryOnMiss,
    principal: request.principal,
    rateLimits: services.rateLimits,
    requestId,
    appBaseUrl: services.appBaseUrl,
    cursors: services.cursors ?? (defaultCursors ??= new CursorCodec(DEFAULT_CURSOR_SECRET)),
    webhooksAllowPrivate: services.webhooksAllowPrivate ?? false,
    idempotencyKey: request.idempotencyKey,
    clientAddress: request.clientAddress,
    answerBudget: new AnswerBudget(services.maxAnswerValues ?? DEFAULT_MAX_ANSWER_VALUES),
  });
}
