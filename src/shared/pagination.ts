/**
 * Pages of any list (spec 2.1): the arguments every list takes, their bounds, and the envelope a
 * list returns, declared once. The GraphQL page types come from one factory (type-graphql's
 * "generic types" pattern); which envelope fields may be null is the spec's choice per list.
 */
import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { Rules } from './schema/input-rules';

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
  }
  return PageClass;
}
