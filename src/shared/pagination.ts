/**
 * Pages of any list (spec 2.1): the arguments every list takes, their bounds, and the envelope a
 * list returns, declared once. The GraphQL page types come from one factory (type-graphql's
 * "generic types" pattern); which envelope fields may be null is the spec's choice per list.
 */
import { ArgsType, Extensions, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { keyValueOf, MAX_CURSOR_LENGTH, type CursorCodec, type CursorPageInfo, type CursorScope, type KeyTerm } from './cursor';
import { Rules } from './schema/input-rules';
import { GRAPHQL_ONLY } from './schema/rest-visibility';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** PostgreSQL's OFFSET takes a bigint, GraphQL's Int stops here: the largest offset either side accepts. */
export const MAX_OFFSET = 2_147_483_647;

export interface PageRequest {
  limit?: number | null;
  offset?: number | null;
}

/**
 * A page's exact total: a number, a count under way, or a count not started because the caller
 * did not select it (`countWhenRead`).
 */
export type PageTotal = number | PromiseLike<number>;

/**
 * A count that starts only when something awaits it: a thenable, which every GraphQL executor
 * awaits like a promise when the field is read after all (graphql-js's and the compiled REST one).
 */
export function countWhenRead(count: () => Promise<number>): PromiseLike<number> {
  let started: Promise<number> | undefined;
  return {
    then: (onFulfilled, onRejected) => (started ??= count()).then(onFulfilled, onRejected),
  };
}

export interface Page<T> {
  items: T[];
  limit: number;
  offset: number;
  total: PageTotal;
  /** the cursor of the next page, null at the end; root lists only (nested pages take no cursor) */
  next_cursor?: string | null;
  pageInfo?: CursorPageInfo | null;
}

/** What a root list's page says about the next one, from the rows read (one more than the limit). */
export function cursorFields(hasNextPage: boolean, endCursor: string | null): { next_cursor: string | null; pageInfo: CursorPageInfo } {
  const next = hasNextPage ? endCursor : null;
  return { next_cursor: next, pageInfo: { endCursor, hasNextPage } };
}

/**
 * A page from the `limit + 1` rows read (the extra one only says that a next page exists). With a
 * cursor codec, the page names its last row as the next page's cursor (an empty page hands back
 * the cursor it was given).
 */
export function keysetPage<T>(
  found: T[],
  page: { limit: number; offset: number; total: PageTotal },
  keyset?: { codec: CursorCodec; scope: CursorScope; terms: readonly KeyTerm[]; given?: string | null },
): Page<T> {
  const hasNextPage = found.length > page.limit;
  const items = hasNextPage ? found.slice(0, page.limit) : found;
  if (!keyset) return { items, ...page };
  const last = items[items.length - 1] as Record<string, unknown> | undefined;
  const endCursor = last
    ? keyset.codec.encode(
        keyset.scope,
        keyset.terms.map((t) => keyValueOf(last[t.field])),
      )
    : (keyset.given ?? null);
  return { items, ...page, ...cursorFields(hasNextPage, endCursor) };
}

/** The page a request asks for, defaults applied (the values were checked against their rules already). */
export function pageBounds(page: PageRequest): { limit: number; offset: number } {
  return { limit: page.limit ?? DEFAULT_PAGE_SIZE, offset: page.offset ?? 0 };
}

@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, defaultValue: DEFAULT_PAGE_SIZE, description: `page size, 0 to ${MAX_PAGE_SIZE}` })
  @Rules({ kind: 'range', ge: 0, le: MAX_PAGE_SIZE })
  limit?: number | null;

  @Field(() => Int, { defaultValue: 0, description: `items to skip, 0 to ${MAX_OFFSET}` })
  @Rules({ kind: 'range', ge: 0, le: MAX_OFFSET })
  offset!: number;
}

/** `cursor`: root lists only (issue 26); a separate args class so nested lists do not take it. */
@ArgsType()
export class CursorArgs {
  @Field(() => String, {
    nullable: true,
    description:
      'opaque position returned by the previous page (`next_cursor`, `pageInfo.endCursor`): the page after it, ' +
      'with the same order_by and filters. Not combined with a non-zero offset.',
  })
  @Rules({ kind: 'length', max: MAX_CURSOR_LENGTH })
  cursor?: string | null;
}

@ObjectType('PageInfo', { simpleResolvers: true, description: 'Relay-style page info of a root list' })
export class PageInfo {
  @Field(() => String, { nullable: true, description: 'cursor after the last item (null on an empty page)' })
  endCursor!: string | null;

  @Field(() => Boolean)
  hasNextPage!: boolean;
}

type EnvelopeField = 'limit' | 'offset' | 'total';

export interface PageTypeOptions {
  /** Envelope fields the spec documents as always present (the others are nullable). */
  required?: readonly EnvelopeField[];
  /** Description of `total`. */
  totalDescription?: string;
}

/**
 * The fields of a page of `itemType`: `{ items, limit, offset, total }`. The concrete type names
 * itself: `@ObjectType('UserPage') class UserPage extends PageType(User, {...}) {}`.
 */
export function PageType<T extends object>(itemType: ClassType<T>, options: PageTypeOptions = {}) {
  const nullable = (field: EnvelopeField) => !(options.required ?? []).includes(field);

  @ObjectType({ simpleResolvers: true })
  abstract class PageClass {
    @Field(() => [itemType])
    items!: T[];

    @Field(() => Int, { nullable: nullable('limit') })
    limit!: number;

    @Field(() => Int, { nullable: nullable('offset') })
    offset!: number;

    // Resolved by a function, not read as a plain property: the total may be a count under way,
    // which the compiled REST executor awaits only from a resolver.
    @Field(() => Int, {
      simple: false,
      nullable: nullable('total'),
      description: options.totalDescription ?? 'matches for the filters, ignoring limit and offset',
    })
    total!: PageTotal;

    @Field(() => String, {
      nullable: true,
      description: 'the `cursor` of the next page, null at the end (and on nested lists, which take no cursor)',
    })
    next_cursor?: string | null;

    @Extensions(GRAPHQL_ONLY)
    @Field(() => PageInfo, { nullable: true, description: 'null on nested lists, which take no cursor' })
    pageInfo?: CursorPageInfo | null;
  }
  return PageClass;
}
