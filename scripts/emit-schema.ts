/**
 * Writes the GraphQL schema, in SDL, to ./schema.graphql (`npm run schema:emit`).
 *
 * The file is committed so that schema changes show up in review and clients can generate code
 * from it without running the service; test/graphql/schema-file.test.ts fails when it is stale.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { printSchema, type GraphQLSchema } from 'graphql';
import { buildAppSchema } from '../src/api/graphql/schema';

export const SCHEMA_FILE = path.resolve(__dirname, '..', 'schema.graphql');

/** The file's exact text; the staleness test compares against this very function. */
export function schemaFileText(schema: GraphQLSchema): string {
  return `${printSchema(schema)}\n`;
}

async function main(): Promise<void> {
  writeFileSync(SCHEMA_FILE, schemaFileText(await buildAppSchema()), 'utf8');
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`);
}

// Run only as a script, not when the test imports schemaFileText.
if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
