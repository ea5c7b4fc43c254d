/**
 * Conditional requests on the REST fetch-one routes (issue 26). The strong ETag is derived from
 * what the answer depends on, read from the database before the document is built: the row's
 * identifier and `updated_at` (one primary-key probe), and a salt made of the route's fixed
 * GraphQL document, so a release that changes the answer's shape changes every ETag. A matching
 * `If-None-Match` is answered 304 without executing the document or loading the ~8 KB report.
 *
 * With `If-None-Match`, the version is read before the document, so a 200's body is never older
 * than its ETag (a write in between gives a newer body under the older ETag: the client's next
 * request simply gets a 200). Without it there is nothing to compare: a route whose answer carries
 * its version (a report's `updated_at`) takes the ETag from the answer itself, the same row as the
 * body, and saves the probe (one statement of two for a report fetched whole).
 */
import { createHash } from 'node:crypto';
import { print, type DocumentNode } from 'graphql';
import type { RequestContext } from '../../features/context';
import { reportVersion } from '../../features/reports/reports.service';
import { userVersion } from '../../features/users/users.service';

type VersionReader = (context: RequestContext, organizationId: string, variables: Record<string, unknown>) => Promise<Date | null>;

/** The version an answer carries (its `updated_at` as the REST body writes it: `Date#toISOString`). */
const updatedAtOf = (answer: unknown): string | undefined => {
  const updatedAt = (answer as { updated_at?: unknown } | null | undefined)?.updated_at;
  return typeof updatedAt === 'string' ? updatedAt : undefined;
};

/** Routes answered from one row, how to read that row's version, and where their answer carries it (if it does). */
const VERSIONED_ROUTES: Readonly<Record<string, { id: string; read: VersionReader; inAnswer?: (answer: unknown) => string | undefined }>> =
  {
    'Query.report': {
      id: 'report_id',
      read: (c, org, v) => reportVersion(c.reads, org, String(v.report_id).toLowerCase()),
      inAnswer: updatedAtOf,
    },
    // A user's REST body has no updated_at: its ETag always comes from the probe.
    'Query.user': { id: 'user_id', read: (c, org, v) => userVersion(c.reads, org, String(v.user_id).toLowerCase()) },
  };

/** Whether the route answers ETag / If-None-Match (the OpenAPI document says so). */
export function hasConditionalRequests(field: string): boolean {
  return field in VERSIONED_ROUTES;
}

export interface EntityTagger {
  /** The strong ETag of this request's answer, or null when the row does not exist (the route answers 404). */
  etagOf(context: RequestContext, organizationId: string, variables: Record<string, unknown>): Promise<string | null>;
  /** The ETag of the row's version read by another statement (a stored answer's). */
  etagOfVersion(variables: Record<string, unknown>, updatedAt: Date): string;
  /** The same ETag read from the answer itself, on routes whose answer carries its version (else absent). */
  etagOfAnswer?(answer: unknown, variables: Record<string, unknown>): string | null;
}

/** The route's tagger, or undefined for routes without conditional requests. */
export function entityTagger(field: string, document: DocumentNode): EntityTagger | undefined {
  const versioned = VERSIONED_ROUTES[field];
  if (!versioned) return undefined;
  const salt = createHash('sha256')
    .update(`etag v1\n${print(document)}`)
    .digest('hex')
    .slice(0, 16);
  const etag = (variables: Record<string, unknown>, updatedAt: string) => {
    const id = String(variables[versioned.id]).toLowerCase();
    return `"${createHash('sha256').update(`${salt}\n${id}\n${updatedAt}`).digest('base64url').slice(0, 27)}"`;
  };
  const { inAnswer } = versioned;
  return {
    async etagOf(context, organizationId, variables) {
      const updatedAt = await versioned.read(context, organizationId, variables);
      return updatedAt ? etag(variables, updatedAt.toISOString()) : null;
    },
    etagOfVersion: (variables, updatedAt) => etag(variables, updatedAt.toISOString()),
    ...(inAnswer && {
      etagOfAnswer(answer, variables) {
        const updatedAt = inAnswer(answer);
        return updatedAt === undefined ? null : etag(variables, updatedAt);
      },
    }),
  };
}

/**
 * True when If-None-Match names this ETag (the answer is then 304). RFC 9110 §13.1.2: it compares weakly (a `W/` prefix is ignored); `*` matches any
 * current representation.
 */
export function notModified(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const values = (Array.isArray(header) ? header.join(',') : header).split(',').map((v) => v.trim());
  return values.some((value) => value === '*' || value.replace(/^W\//, '') === etag);
}
