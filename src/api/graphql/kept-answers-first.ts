/**
 * A `report` query whose answer is kept (api/stored-answers.ts) answered before Apollo runs
 * (issue 27). Apollo answered such a request by the kept body already
 * (stored-report-answers.ts), but only after its own pipeline: a SHA-256 of the document (3-6 kB)
 * on every request, eight plugins' hooks, a content negotiation for incremental delivery, the
 * executor's variable coercion; measured, that made one report over GraphQL cost the server ~1.5×
 * what REST's fetch-one did for the same body (bench/HISTORY.md, 2026-11-29).
 *
 * A document is answered here only once Apollo has run it: when Apollo executes a `report`
 * query whose selection is exactly the REST route's, the query text and the operation name the
 * client sent are remembered with what answering them needs (stored-report-answers.ts calls
 * `recognize`). The same text and operation name sent again by the same organization, with
 * variables that give a valid `report_id`, is answered here when the report's kept body is
 * current: the same price charged to the same budget, the same headers, the same body
 * (Apollo's own `stringifyResult`), the same content type (Apollo's negotiation, below). Anything
 * else goes on to Apollo: another method, a body Apollo would read otherwise (extensions, a
 * persisted query), an Idempotency-Key header, variables graphql-js would refuse, a refused
 * charge, a report without a kept body. What was done here is handed over so Apollo does not do
 * it twice: the charge (operation-limits.ts uses it instead of charging again) and the report's
 * lookup (stored-report-answers.ts uses it instead of reading again).
 * test/graphql/kept-answers-first.test.ts compares both paths' answers, headers included, on the
 * same database.
 *
 * The remembered documents are bounded: at most MAX_TEXTS_PER_ORGANIZATION per organization (its
 * own oldest go first) and TOTAL_BYTES in all (the organization remembered longest ago goes
 * first), texts of at most MAX_TEXT_CHARACTERS; each keeps its text and copies of its variable
 * definitions and `report` arguments without their locations (a parsed document's tokens are
 * ~33 bytes a character: not kept).
 */
import type { RequestHandler, Request, Response } from 'express';
import {
  getArgumentValues,
  getVariableValues,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { RequestContext } from '../../features/context';
import type { ApiKeyPrincipal } from '../../features/auth/api-keys';
import type { RateLimitDecision } from '../../platform/rate-limit/rate-limiter';
import { Counter, Gauge, type Registry } from 'prom-client';
import { IDEMPOTENCY_KEY_HEADER } from '../contract/idempotency-key';
import { chargeRequest, type ApiServices } from '../request-context';
import { reportAnswers, StoredJson, stringifyResult, type StoredAnswerLookup } from '../stored-answers';

/** Longest query text remembered: one report's whole document is ~6,000 characters, printed. */
export const MAX_TEXT_CHARACTERS = 32_768;
/** Texts remembered per organization: a client sends one or two. */
export const MAX_TEXTS_PER_ORGANIZATION = 8;
/** Estimated bytes remembered in all (a text's UTF-16 and ~2 kB of copied nodes each). */
export const TOTAL_BYTES = 4 * 1024 * 1024;
const BYTES_PER_ENTRY = 2_048;

/** Apollo's MEDIA_TYPES for a single result, in its order of preference (not exported by Apollo). */
const SINGLE_RESULT_TYPES = [
  'application/json; charset=utf-8',
  'application/graphql-response+json; charset=utf-8',
  'application/json; callbackSpec=1.0; charset=utf-8',
];
/** Accept headers whose negotiated content type is remembered (clients send a handful). */
const MAX_ACCEPT_VALUES = 64;
const MAX_ACCEPT_CHARACTERS = 512;

interface Recognized {
  text: string;
  /** the operationName the client sent (undefined: none, or null) */
  operationName: string | undefined;
  variableDefinitions: readonly VariableDefinitionNode[];
  /** the `report` field, its arguments only */
  field: FieldNode;
  /** the field's response key */
  key: string;
  /** points charged for the operation (its price does not depend on variables: no `limit`, no directive) */
  points: number;
  bytes: number;
}

interface HandedOver {
  charge: RateLimitDecision;
  /** present when the report was looked up here */
  lookup?: StoredAnswerLookup;
}

/**
 * The entry for this text and operation name. Compared, not hashed: a Map keyed by the text
 * hashed the ~6 kB a request brings on every lookup, where lengths differ or one comparison settles it.
 */
const find = (entries: readonly Recognized[], text: string, operationName: string | undefined) =>
  entries.find((entry) => entry.text.length === text.length && entry.operationName === operationName && entry.text === text);

/**
 * Where a request's context carries what was done before Apollo ran: a property, not a WeakMap
 * entry, because Apollo hands its hooks and executor a shallow copy of the context it was given.
 */
const HANDED_OVER = Symbol('handed over before Apollo');
type CarryingContext = RequestContext & { [HANDED_OVER]?: HandedOver };

/** A node copied without its location (which keeps the whole document's tokens alive). */
const withoutLocations = <T>(node: T): T =>
  JSON.parse(JSON.stringify(node, (key, value: unknown) => (key === 'loc' ? undefined : value))) as T;

export class KeptAnswersFirst {
  /** Each organization's texts, oldest first; the organizations, least recently taught first. */
  private readonly byOrganization = new Map<string, Recognized[]>();
  private rememberedBytes = 0;
  private readonly contentTypes = new Map<string, string | false>();
  private readonly answers;
  private readonly reportField: GraphQLField<unknown, unknown>;
  private readonly answered?: Counter;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly services: ApiServices,
    registry?: Registry,
  ) {
    this.answers = reportAnswers(schema);
    this.reportField = schema.getQueryType()!.getFields().report!;
    if (!registry) return;
    this.answered = new Counter({
      name: 'vr_graphql_kept_answers_first_total',
      help: 'GraphQL report queries answered from their kept answer before Apollo ran.',
      registers: [registry],
    });
    const bytes = () => this.rememberedBytes;
    new Gauge({
      name: 'vr_graphql_kept_answer_documents_bytes',
      help: 'Estimated bytes of the query texts remembered for answering before Apollo (bounded per organization and in total).',
      registers: [registry],
      collect() {
        this.set(bytes());
      },
    });
  }

  /**
   * Remembers a query text Apollo executed whose `report` field (`field`, the operation's only
   * root field) selects the REST route's full report, charged `points`.
   */
  recognize(
    organizationId: string,
    text: string | undefined,
    operationName: string | undefined,
    operation: OperationDefinitionNode,
    field: FieldNode,
    points: number,
  ): void {
    if (text === undefined || text.length > MAX_TEXT_CHARACTERS) return;
    let entries = this.byOrganization.get(organizationId);
    if (entries && find(entries, text, operationName)) return;
    const entry: Recognized = {
      text,
      operationName,
      variableDefinitions: withoutLocations(operation.variableDefinitions ?? []),
      field: withoutLocations({ ...field, selectionSet: undefined, directives: undefined }),
      key: field.alias?.value ?? field.name.value,
      points,
      bytes: text.length * 2 + BYTES_PER_ENTRY,
    };
    // The organization becomes the last one forgotten.
    if (entries) this.byOrganization.delete(organizationId);
    entries ??= [];
    this.byOrganization.set(organizationId, entries);
    entries.push(entry);
    this.rememberedBytes += entry.bytes;
    if (entries.length > MAX_TEXTS_PER_ORGANIZATION) this.forgetOldest(organizationId, entries);
    while (this.rememberedBytes > TOTAL_BYTES) {
      const [oldestOrganization, oldest] = this.byOrganization.entries().next().value!;
      this.forgetOldest(oldestOrganization, oldest);
    }
  }

  private forgetOldest(organizationId: string, entries: Recognized[]): void {
    this.rememberedBytes -= entries.shift()!.bytes;
    if (entries.length === 0) this.byOrganization.delete(organizationId);
  }

  /** Estimated bytes of the remembered texts and nodes. */
  get bytes(): number {
    return this.rememberedBytes;
  }

  /** Texts remembered, all organizations (for tests and metrics). */
  get size(): number {
    let size = 0;
    for (const entries of this.byOrganization.values()) size += entries.length;
    return size;
  }

  /** The charge made before Apollo ran, for operation-limits.ts not to charge again. */
  chargedBefore(context: RequestContext): RateLimitDecision | undefined {
    return (context as CarryingContext)[HANDED_OVER]?.charge;
  }

  /** Whether the report was looked up before Apollo ran, and what was found (stored-report-answers.ts). */
  lookedUpBefore(context: RequestContext): { lookup: StoredAnswerLookup } | undefined {
    const handed = (context as CarryingContext)[HANDED_OVER];
    return handed && handed.lookup !== undefined ? { lookup: handed.lookup } : undefined;
  }

  /**
   * Answers a remembered document's request whose report has a kept body; hands every other
   * request to `apollo`. `contextOf` makes the request's context (the one Apollo is then given).
   */
  handler(apollo: RequestHandler, contextOf: (req: Request, res: Response) => RequestContext): RequestHandler {
    return async (req, res, next) => {
      const principal = res.locals.principal as ApiKeyPrincipal | null | undefined;
      const recognized = principal && req.method === 'POST' ? this.recognizedFor(principal.organizationId, req) : undefined;
      if (!principal || !recognized) return apollo(req, res, next);
      const contentType = this.contentTypeFor(req);
      if (contentType === false) return apollo(req, res, next);
      const body = req.body as { variables?: Record<string, unknown> | null };
      const coerced = getVariableValues(this.schema, recognized.variableDefinitions, body.variables ?? {});
      if (coerced.errors) return apollo(req, res, next);
      let args: Record<string, unknown>;
      try {
        args = getArgumentValues(this.reportField, recognized.field, coerced.coerced);
      } catch {
        return apollo(req, res, next);
      }
      const context: CarryingContext = contextOf(req, res);
      let charge: RateLimitDecision;
      try {
        charge = await chargeRequest(this.services, principal, recognized.points);
      } catch {
        // The budget could not be read: Apollo charges again, and answers its failure as it always did.
        return apollo(req, res, next);
      }
      const handed: HandedOver = { charge };
      context[HANDED_OVER] = handed;
      if (!charge.allowed) return apollo(req, res, next);
      // A failure (the database away) is answered by Apollo's path, which asks again.
      handed.lookup = await this.answers.lookup(context, principal.organizationId, args).catch(() => null);
      if (!handed.lookup || !('body' in handed.lookup)) return apollo(req, res, next);
      // As Apollo writes it: the charge's headers, the content type, the body and its length.
      for (const [name, value] of Object.entries(charge.headers)) res.setHeader(name, value);
      res.setHeader('content-type', contentType);
      const answer = stringifyResult({ data: { [recognized.key]: new StoredJson(handed.lookup.body) } });
      res.statusCode = 200;
      res.setHeader('content-length', Buffer.byteLength(answer));
      res.end(answer);
      this.answered?.inc();
    };
  }

  /** The remembered document this request sends, when Apollo would read its body as given. */
  private recognizedFor(organizationId: string, req: Request): Recognized | undefined {
    const body = req.body as Record<string, unknown> | undefined;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || typeof body.query !== 'string') return undefined;
    const { variables, extensions, operationName } = body;
    if (extensions !== undefined && extensions !== null) return undefined;
    if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
    // The context function refuses a malformed key: Apollo answers that.
    if (req.headers[IDEMPOTENCY_KEY_HEADER] !== undefined) return undefined;
    const entries = this.byOrganization.get(organizationId);
    return entries && find(entries, body.query, typeof operationName === 'string' ? operationName : undefined);
  }

  /** The content type Apollo answers a single result with for this Accept header (false: a 406). */
  private contentTypeFor(req: Request): string | false {
    const accept = req.headers.accept ?? '';
    let type = this.contentTypes.get(accept);
    if (type === undefined) {
      // Apollo's chooseContentTypeForSingleResultResponse: the same negotiator (accepts' is
      // negotiator's mediaType), the same types in the same order; no header: the first.
      type = req.accepts(SINGLE_RESULT_TYPES);
      if (accept.length <= MAX_ACCEPT_CHARACTERS) {
        if (this.contentTypes.size >= MAX_ACCEPT_VALUES) this.contentTypes.clear();
        this.contentTypes.set(accept, type);
      }
    }
    return type;
  }
}
