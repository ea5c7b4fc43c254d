/**
 * A graphql-ws client for tests: what a subscription received, its errors, and the socket's close.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { waitFor } from './wait';

export interface PushedEvent {
  cursor: string;
  position: string;
  type: string;
  subject: string;
  occurred_at: string;
  payload: Record<string, unknown>;
}

export interface OpenSubscription {
  events: PushedEvent[];
  errors: { message: string; extensions?: Record<string, unknown> }[];
  completed: boolean;
  /** resolves once at least `count` events have arrived (fails after `timeoutMs`) */
  waitForEvents(count: number, timeoutMs?: number): Promise<PushedEvent[]>;
  waitForError(timeoutMs?: number): Promise<{ message: string; extensions?: Record<string, unknown> }>;
  unsubscribe(): void;
}

export function wsUrl(server: { url: string }): string {
  return `${server.url.replace(/^http/, 'ws')}/graphql`;
}

export function subscriptionClient(server: { url: string }, connectionParams: Record<string, unknown>): Client {
  return createClient({ url: wsUrl(server), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true });
}

export function subscribe(client: Client, query: string, variables: Record<string, unknown> = {}): OpenSubscription {
  const state: OpenSubscription = {
    events: [],
    errors: [],
    completed: false,
    waitForEvents: (count, timeoutMs = 20_000) =>
      waitFor(() => {
        if (state.errors.length > 0) throw new Error(`subscription failed: ${JSON.stringify(state.errors)}`);
        return state.events.length >= count ? state.events : undefined;
      }, timeoutMs).catch((error: Error) => {
        throw new Error(`${error.message}: ${state.events.length} of ${count} events received`);
      }) as Promise<PushedEvent[]>,
    waitForError: (timeoutMs = 10_000) => waitFor(() => state.errors[0], timeoutMs),
    unsubscribe: () => unsubscribe(),
  };
  const unsubscribe = client.subscribe<Record<string, PushedEvent>>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) state.errors.push(...(result.errors as never[]));
        for (const event of Object.values(result.data ?? {})) state.events.push(event);
      },
      error: (error) => {
        if (Array.isArray(error)) state.errors.push(...(error as never[]));
        else state.errors.push({ message: String((error as { reason?: string }).reason ?? error) });
      },
      complete: () => {
        state.completed = true;
      },
    },
  );
  return state;
}

/** The close code and reason a raw graphql-transport-ws socket gets after sending `connection_init` with `payload`. */
export async function closeAfterInit(server: { url: string }, payload: unknown): Promise<{ code: number; reason: string }> {
  const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws');
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.send(JSON.stringify({ type: 'connection_init', ...(payload === undefined ? {} : { payload }) }));
  return closed;
}

/** The close code a raw graphql-transport-ws socket gets after sending `message` as its first message. */
export async function closeAfterMessage(server: { url: string }, message: string): Promise<number> {
  const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws');
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  socket.send(message);
  return closed;
}
