/**
 * The differences from FastAPI that the product wants, each with its reason (docs/api-behaviour.md,
 * "Differences from FastAPI", says the same to users). `npm run parity` and the replay in `npm test`
 * both classify through this one list, so a difference is either here or a failure.
 */
export interface DeliberateDifference {
  reason: string;
  /** True when this request's differences (as `differences()` words them) are this deliberate one. */
  covers(requestName: string, found: string[]): boolean;
}

export const DELIBERATE_DIFFERENCES: DeliberateDifference[] = [
  {
    reason: 'the 307 to the other slash form carries a JSON body: the product wants every response JSON (FastAPI sends none)',
    covers: (name, found) =>
      /^GET \/(public|%70ublic)\/(reports|users|dealerships)(\?.*)?$|create-lead\/$/.test(name) &&
      found.every((d) => d.startsWith('content-type')),
  },
  {
    reason:
      'text PostgreSQL cannot store (NUL) is a 422 on its field; the reference app stores nothing and answers 201 ' +
      '(a FastAPI backed by PostgreSQL would fail on it)',
    covers: (name, found) => name === 'NUL in name' && found.join() === 'status 422 ≠ 201',
  },
];

/** The deliberate difference that covers a request's differences, if one does. */
export function deliberateDifference(requestName: string, found: string[]): DeliberateDifference | undefined {
  return found.length === 0 ? undefined : DELIBERATE_DIFFERENCES.find((d) => d.covers(requestName, found));
}
