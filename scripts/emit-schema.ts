/**
 * Writes the GraphQL schema, in SDL, to ./schema.graphql and the REST interface's OpenAPI
 * document to ./openapi.json (`npm run schema:emit`).
 *
 * The files are committed so that contract changes show up in review and clients can generate
 * code from them without running the service (`npm run codegen` does, for examples/);
 * test/graphql/schema-file.test.ts fails when one is stale.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { printSchema, type GraphQLSchema } from 'graphql';
import { buildAppSchema } from '../src/api/graphql/schema';
import { buildOpenApiDocument } from '../src/api/openapi/openapi-document';

export const SCHEMA_FILE = path.resolve(__dirname, '..', 'schema.graphql');
export const OPENAPI_FILE = path.resolve(__dirname, '..', 'openapi.json');

/** The file's exact text; the staleness test compares against this very function. */
export function schemaFileText(schema: GraphQLSchema): string {
  return `${printSchema(schema)}\n`;
}

/** `GET /openapi.json` as a file. */
export function openApiFileText(schema: GraphQLSchema): string {
  return `${JSON.stringify(buildOpenApiDocument(schema), null, 2)}\n`;
}

async function main(): Promise<void> {
  const schema = await buildAppSchema();
  writeFileSync(SCHEMA_FILE, schemaFileText(schema), 'utf8');
  writeFileSync(OPENAPI_FILE, openApiFileText(schema), 'utf8');
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)} and ${path.relative(process.cwd(), OPENAPI_FILE)}`);
}

// Run only as a script, not when the test imports schemaFileText.
if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
