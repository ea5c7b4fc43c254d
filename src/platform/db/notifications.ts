/**
 * PostgreSQL `LISTEN`, for caches that must forget an entry the moment the database changes it
 * (an API key revoked by the admin CLI of another process, or by plain SQL: triggers send the
 * `NOTIFY`). A cache may trust its entries only while `active`: notifications sent while the
 * connection was down are lost, so every (re)connection first calls `reset`.
 */
import pg from 'pg';

export interface NotificationHandlers {
  /** a NOTIFY on the channel */
  message(payload: string): void;
  /** Notifications may have been missed (connection lost or just made): forget everything. */
  reset(): void;
}

export interface Subscription {
  /** Listening now: notifications sent from here on will arrive. */
  readonly active: boolean;
}

export const INACTIVE: Subscription = Object.freeze({ active: false });

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;
/**
 * A connection can die without a word (a network cut sends no reset): the listener asks its
 * connection a trivial question this often, and counts as listening only while one of the last
 * answers is recent. So a silent loss stops caches trusting themselves within HEARTBEAT_TRUST_MS.
 */
const HEARTBEAT_MS = 1_000;
const HEARTBEAT_TRUST_MS = 3_000;

/**
 * One dedicated connection (not a pooled one: LISTEN is session state) for every channel of the
 * process, reconnecting with backoff while the server is away.
 */
export class PostgresListener {
  private readonly channels = new Map<string, NotificationHandlers[]>();
  private client?: pg.Client;
  private connected = false;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer?: NodeJS.Timeout;
  private connecting?: Promise<void>;
  private heartbeat?: NodeJS.Timeout;
  private lastAnswerAt = 0;

  constructor(private readonly connectionString: string) {}

  subscribe(channel: string, handlers: NotificationHandlers): Subscription {
    const list = this.channels.get(channel) ?? [];
    list.push(handlers);
    this.channels.set(channel, list);
    if (this.connected) void this.client?.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => this.lost());
    else void this.connect();
    const isListening = () => this.connected && Date.now() - this.lastAnswerAt < HEARTBEAT_TRUST_MS;
    return {
      get active() {
        return isListening();
      },
    };
  }

  private connect(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'vr-api-listener', keepAlive: true });
    client.on('error', () => this.lost());
    client.on('end', () => this.lost());
    client.on('notification', (notification) => {
      for (const handlers of this.channels.get(notification.channel) ?? []) handlers.message(notification.payload ?? '');
    });
    this.client = client;
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch {
      this.lost();
      return;
    }
    if (this.closed || this.client !== client) return;
    // Anything cached before this point may have changed unseen.
    this.resetAll();
    this.connected = true;
    this.lastAnswerAt = Date.now();
    this.retryMs = RECONNECT_MIN_MS;
    this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_MS).unref();
  }

  private beat(): void {
    const client = this.client;
    if (!this.connected || !client) return;
    client.query('SELECT 1').then(
      () => {
        if (this.client === client) this.lastAnswerAt = Date.now();
      },
      () => {
        if (this.client === client) this.lost();
      },
    );
  }

  /** The connection is gone: caches stop trusting themselves until the next one is listening. */
  private lost(): void {
    if (!this.client) return;
    void this.drop();
    this.resetAll();
    if (this.closed) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }

  /** Closes the connection, if any, and hears no more from it. */
  private drop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    if (!client) return Promise.resolve();
    client.removeAllListeners();
    client.on('error', () => undefined);
    return client.end().catch(() => undefined);
  }

  private resetAll(): void {
    for (const list of this.channels.values()) for (const handlers of list) handlers.reset();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.connecting;
    await this.drop();
  }
}
