/**
 * A root field's value already written as JSON text (by PostgreSQL through the answer plan, or by
 * the typed path for what the plan handed over). It stands for the value in an execution result;
 * the interfaces write it as it is: GraphQL's `stringifyResult` where the value stands, REST as
 * the whole body. It carries what the interfaces read from the value besides its text: the row's
 * version (a report's ETag) and the next page's cursor (a list's Link header).
 */
import { randomUUID } from 'node:crypto';
import type { FormattedExecutionResult } from 'graphql';

export class RawJson {
  #text: string | undefined;

  constructor(
    text: string,
    readonly meta: { version?: string; nextCursor?: string | null } = {},
  ) {
    this.#text = text;
  }

  /**
   * The text, for the one writer of the answer: the value lets go of it, so a result kept after
   * its answer was written keeps no answer. Apollo Server keeps each operation's result reachable
   * until V8's next full collection (its gateway request context, an accessor pair V8 makes in the
   * old generation), and an answer kept that long is copied out of the young generation first.
   */
  take(): string {
    const text = this.#text;
    if (text === undefined) throw new Error('a written answer was taken twice');
    this.#text = undefined;
    return text;
  }

  /** What a serializer that does not know it writes (sofa's Response, whose body REST replaces with the text). */
  toJSON(): null {
    return null;
  }
}

/** Stands for the data while the rest of the result is written (random: nothing else in a result holds it). */
const PLACEHOLDER = `raw-json-${randomUUID()}`;
const QUOTED_PLACEHOLDER = JSON.stringify(PLACEHOLDER);

/** A member of `data` as JSON.stringify writes it ('' when it leaves the member out), a RawJson as its text. */
function memberText(key: string, value: unknown): string {
  const text = value instanceof RawJson ? value.take() : JSON.stringify(value);
  return text === undefined ? '' : `${JSON.stringify(key)}:${text}`;
}

/** Apollo's `stringifyResult`: its own (JSON and a newline), with each root field's RawJson written as it is. */
export function stringifyResult(result: FormattedExecutionResult): string {
  const data = result.data as Record<string, unknown> | null | undefined;
  if (!data || !Object.values(data).some((value) => value instanceof RawJson)) return `${JSON.stringify(result)}\n`;
  const members: string[] = [];
  for (const key in data) {
    const member = memberText(key, data[key]);
    if (member !== '') members.push(member);
  }
  const dataText = `{${members.join(',')}}`;
  // The result's other members (errors, extensions) as JSON.stringify writes them, data in its place.
  return `${JSON.stringify({ ...result, data: PLACEHOLDER }).replace(QUOTED_PLACEHOLDER, () => dataText)}\n`;
}
