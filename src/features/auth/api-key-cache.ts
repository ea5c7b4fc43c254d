/**
 * API keys resolved once, then served from memory: the lookup was one statement of every request
 * (~0.3 ms of the service's CPU, and PostgreSQL's). Revocation must still act at once
 * (api-behaviour.md), so entries are trusted only while the process LISTENs for the NOTIFY that a
 * trigger on `api_keys` sends for every revocation, deletion or truncation, whoever makes it (this
 * process, another instance, the admin CLI, plain SQL). Without a listening connection (PostgreSQL
 * away, a transaction-mode PgBouncer and no direct URL) every request looks its key up, as before.
 */
import type { PrismaClient } from '../../generated/prisma/client';
import type { Database } from '../../platform/db/database';
import type { Subscription } from '../../platform/db/notifications';
import { Semaphore } from '../../platform/db/statement-limiter';
import { API_KEY_CHANGES_CHANNEL, findApiKey, touchApiKey, type ApiKeyPrincipal, type FoundApiKey, type PresentedKey } from './api-keys';

/** How many keys are kept; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;
/** Even while listening, an entry is looked up again after this long. */
const MAX_AGE_MS = 60_000;
/**
 * Lookups in flight at once, whoever asks. A key not in memory costs a statement on a pooled
 * connection: 2,000 connections presenting wrong keys at once took every connection of the pool
 * and the other tenants' requests timed out waiting for one. The pool keeps the rest.
 */
export const MAX_CONCURRENT_LOOKUPS = 4;
/**
 * Keys found unknown are remembered this long (a wrong key sent again costs no statement). Keys
 * are random: one found unknown is not about to be created, and a revoked one stays revoked.
 */
const UNKNOWN_KEY_MS = 60_000;

interface Entry {
  principal: ApiKeyPrincipal;
  cachedAt: number;
  lastUsedAt: Date | null;
}

export class ApiKeyAuthenticator {
  private readonly entries = new Map<string, Entry>();
  /** digest of a key found unknown → when that was found */
  private readonly unknown = new Map<string, number>();
  private readonly lookups = new Semaphore(MAX_CONCURRENT_LOOKUPS);
  /**
   * Lookups under way, by digest, with the generation they started in: the 50 connections of one
   * client presenting the same key at once wait for one statement, not 50 in line (a flood of one
   * wrong key per address queued 2,000 lookups behind MAX_CONCURRENT_LOOKUPS). A request joins
   * only a lookup that started after the last change heard, so a revocation is never answered
   * from a row read before it.
   */
  private readonly inFlight = new Map<string, { generation: number; found: Promise<FoundApiKey | null> }>();
  private readonly changes: Subscription;
  /** Bumped by every change heard: a lookup that started before one must not be cached. */
  private generation = 0;
  /** Told of every change heard: a key's digest, or '*' for any key (see `onChange`). */
  private readonly changeListeners = new Set<(digest: string) => void>();

  constructor(
    private readonly prisma: PrismaClient,
    db: Pick<Database, 'listen'>,
  ) {
    this.changes = db.listen(API_KEY_CHANGES_CHANNEL, {
      message: (digest) => {
        this.generation += 1;
        if (digest === '*') this.entries.clear();
        else this.entries.delete(digest);
        this.tell(digest);
      },
      reset: () => {
        this.generation += 1;
        this.entries.clear();
        this.tell('*');
      },
    });
  }

  /**
   * Calls `listener` with the digest of each key revoked or deleted (or '*': any key may have
   * changed, and when changes may have been missed) for as long as changes are heard: what holds a
   * key longer than a request (a subscription's socket) checks it again then. Returns the unsubscribe.
   */
  onChange(listener: (digest: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Whether changes are heard now; when not, whoever holds a key checks it again on its own. */
  get hearsChanges(): boolean {
    return this.changes.active;
  }

  private tell(digest: string): void {
    for (const listener of this.changeListeners) listener(digest);
  }

  /** The key's organization when this process knows it valid without asking the database, else undefined. */
  known(presented: PresentedKey): ApiKeyPrincipal | undefined {
    const { digest } = presented;
    if (digest === null || !this.changes.active) return undefined;
    const entry = this.entries.get(digest);
    return entry && Date.now() - entry.cachedAt <= MAX_AGE_MS ? entry.principal : undefined;
  }

  /** Whether this process found the key unknown (or malformed) lately: its answer is a 401 without asking the database. */
  knownUnknown(presented: PresentedKey): boolean {
    const { digest } = presented;
    if (digest === null) return true;
    const unknownSince = this.unknown.get(digest);
    return unknownSince !== undefined && Date.now() - unknownSince <= UNKNOWN_KEY_MS;
  }

  /** The lookup of this key under way, if any: what the key is will be known when it settles. */
  lookupUnderWay(presented: PresentedKey): Promise<unknown> | undefined {
    const { digest } = presented;
    const underWay = digest === null ? undefined : this.inFlight.get(digest);
    return underWay && underWay.generation === this.generation ? underWay.found : undefined;
  }

  /** The key's organization, or null when unknown, malformed or revoked. */
  async authenticate(presented: PresentedKey): Promise<ApiKeyPrincipal | null> {
    const { digest } = presented;
    if (digest === null) return null;
    const now = Date.now();
    const entry = this.changes.active ? this.entries.get(digest) : undefined;
    if (entry && now - entry.cachedAt <= MAX_AGE_MS) {
      if (touchApiKey(this.prisma, entry.principal.keyId, entry.lastUsedAt, now)) entry.lastUsedAt = new Date(now);
      return entry.principal;
    }
    const unknownSince = this.unknown.get(digest);
    if (unknownSince !== undefined && now - unknownSince <= UNKNOWN_KEY_MS) return null;
    const { generation, found: lookup } = this.lookUp(digest);
    const found = await lookup;
    if (!found) {
      this.unknown.delete(digest);
      if (this.unknown.size >= MAX_ENTRIES) this.unknown.delete(this.unknown.keys().next().value!);
      this.unknown.set(digest, now);
      return null;
    }
    const touched = touchApiKey(this.prisma, found.principal.keyId, found.lastUsedAt, now);
    // Kept only if no change was heard while the row was read: it may predate a revocation.
    if (this.changes.active && generation === this.generation) {
      this.entries.delete(digest);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(digest, { principal: found.principal, cachedAt: now, lastUsedAt: touched ? new Date(now) : found.lastUsedAt });
    }
    return found.principal;
  }

  private lookUp(digest: string): { generation: number; found: Promise<FoundApiKey | null> } {
    const underWay = this.inFlight.get(digest);
    if (underWay && underWay.generation === this.generation) return underWay;
    const lookup = { generation: this.generation, found: this.lookups.run(() => findApiKey(this.prisma, digest)) };
    this.inFlight.set(digest, lookup);
    const done = () => {
      if (this.inFlight.get(digest) === lookup) this.inFlight.delete(digest);
    };
    lookup.found.then(done, done);
    return lookup;
  }
}
