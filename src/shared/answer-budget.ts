/**
 * How many values one answer may hold, counted while it is being built (api/graphql/answer-size.ts
 * counts them): pricing bounds what a document names before it runs, but not what the data holds
 * (a report document's lists and JSON values are as long as the inspection app wrote them, and one
 * JSON value can be selected under thousands of aliases). Once the count passes the maximum,
 * every further field that would add to it fails at once, so nothing more is loaded or built.
 */
import { AppError } from './errors';

export class AnswerBudget {
  private used = 0;
  /** The error the answer failed with once it passed the maximum. */
  exceeded: AppError | undefined;

  constructor(readonly maximum: number) {}

  /** Whether `values` more would still be within the maximum. */
  fits(values: number): boolean {
    return !this.exceeded && this.used + values <= this.maximum;
  }

  /** Counts `values` more; the error once the answer holds more than the maximum. */
  charge(values: number): AppError | undefined {
    if (this.exceeded) return this.exceeded;
    this.used += values;
    if (this.used > this.maximum) this.exceeded = answerTooLarge(this.maximum);
    return this.exceeded;
  }
}

/** The widest legitimate answer, a page of 100 full reports, holds ~50,000 values. */
export const DEFAULT_MAX_ANSWER_VALUES = 500_000;

export const answerTooLarge = (maximum: number) =>
  new AppError('QUERY_TOO_COMPLEX', `The answer would hold more than ${maximum} values: lower the limits or select fewer fields`, {
    extra: { maximumAnswerValues: maximum },
  });
