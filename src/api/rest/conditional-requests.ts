/**
 * Conditional requests on the REST fetch-one routes (issue 26). The strong ETag is derived from
 * what the answer depends on: the row's identifier and version (its `xmin`: every write to the row
 * gives it a new one, whoever makes it), and a salt made of the route's fixed GraphQL document, so
 * a release that changes the answer's shape changes every ETag. A matching `If-None-Match` is
 * answered 304 after one primary-key probe, without executing the document.
 *
 * With `If-None-Match`, the version is read before the document, so a 200's body is never older
 * than its ETag (a write in between gives a newer body under the older ETag: the client's next
 * request simply gets a 200). Without it there is nothing to compare: a report's ETag comes with
 * its answer (the statement that writes it reads the row's version too), and saves the probe.
 */
import { createHash } from 'node:crypto';
import { print, type DocumentNode } from 'graphql';
import type { RequestContext } from '../../features/context';
import { reportVersion } from '../../features/reports/reports.service';
import { userVersion } from '../../features/users/users.service';

type VersionReader = (context: RequestContext, organizationId: string, variables: Record<string, unknown>) => Promise<string | null>;

/** Routes answered from one row, and how to read that row's version. */
const VERSIONED_ROUTES: Readonly<Record<string, { id: string; read: VersionReader; inAnswer: boolean }>> = {
  'Query.report': { id: 'report_id', read: (c, org, v) => reportVersion(c.reads, org, String(v.report_id).toLowerCase()), inAnswer: true },
  'Query.user': { id: 'user_id', read: (c, org, v) => userVersion(c.reads, org, String(v.user_id).toLowerCase()), inAnswer: false },
};

/** Whether the route answers ETag / If-None-Match (the OpenAPI document says so). */
export function hasConditionalRequests(field: string): boolean {
  return field in VERSIONED_ROUTES;
}

export interface EntityTagger {
  /** The strong ETag of this request's answer, or null when the row does not exist (the route answers 404). */
  etagOf(context: RequestContext, organizationId: string, variables: Record<string, unknown>): Promise<string | null>;
  /** The ETag of the row's version read by another statement (the one that wrote the answer). */
  etagOfVersion(variables: Record<string, unknown>, version: string): string;
  /** Whether the route's answer usually comes with its row's version (then no probe is needed without If-None-Match). */
  versionInAnswer: boolean;
}

/** The route's tagger, or undefined for routes without conditional requests. */
export function entityTagger(field: string, document: DocumentNode): EntityTagger | undefined {
  const versioned = VERSIONED_ROUTES[field];
  if (!versioned) return undefined;
  const salt = createHash('sha256')
    .update(`etag v2\n${print(document)}`)
    .digest('hex')
    .slice(0, 16);
  const etag = (variables: Record<string, unknown>, version: string) => {
    const id = String(variables[versioned.id]).toLowerCase();
    return `"${createHash('sha256').update(`${salt}\n${id}\n${version}`).digest('base64url').slice(0, 27)}"`;
  };
  return {
    async etagOf(context, organizationId, variables) {
      const version = await versioned.read(context, organizationId, variables);
      return version === null ? null : etag(variables, version);
    },
    etagOfVersion: etag,
    versionInAnswer: versioned.inAnswer,
  };
}

/** True when If-None-Match names this ETag (then 304). RFC 9110 §13.1.2: weak comparison (`W/` ignored); `*` matches any. */
export function notModified(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const values = (Array.isArray(header) ? header.join(',') : header).split(',').map((v) => v.trim());
  return values.some((value) => value === '*' || value.replace(/^W\//, '') === etag);
}
