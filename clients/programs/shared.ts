/**
 * What every generated client's program does against the real server, and reports on stdout as
 * one JSON line: the JSON-filter case (state__contains folder_sold.status true, as the client's
 * types ask for it), a lead creation, and that lead's report read back (its state holds nulls:
 * `folder_estimated: null`, which the generated schema, when it has one, must accept).
 */
export const BASE_URL = process.env.BASE_URL!;
export const API_KEY = process.env.API_KEY!;
export const DEALERSHIP_ID = process.env.DEALERSHIP_ID!;

/** The filter as the document types it: a string whose content is the JSON object. */
export const SOLD = JSON.stringify({ folder_sold: { status: true } });

export interface Outcome {
  /** the total of the filtered page */
  sold: number;
  /** the created lead's token */
  lead: string;
  /** the lead read back, as the client returned it */
  folderEstimated: unknown;
}

export function report(outcome: Outcome): void {
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

export function fail(what: string, detail: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(detail)}`);
}
