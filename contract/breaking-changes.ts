/**
 * Breaking changes for clients between the last released contract (contract/released/: the
 * schema.graphql and openapi.json clients were given) and the current one, and whether each is
 * announced in CHANGELOG.md's "Unreleased" section (the finding's text, verbatim).
 *
 * GraphQL: @graphql-inspector/core's diff, the engine of `graphql-inspector diff`, its BREAKING
 * changes. OpenAPI (no offline oasdiff on npm): a small semantic diff that reads OpenAPI 3.0 and
 * 3.1 alike (`nullable`, `anyOf [T, null]`, a JSON query value as `content` or
 * `contentMediaType`): operations, parameters and body fields removed or newly required, a
 * parameter's type changed, a bound tightened (maxLength, maximum, minimum, pattern, enum), a
 * success response's field removed, no longer required, or newly nullable.
 *
 *   npm run contract:check      prints the findings, exits 1 on an unannounced one
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';

/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents are plain JSON, walked by key */
type Doc = any;
type Schema = any;

const ROOT = path.resolve(__dirname, '..');

export async function graphqlBreakingChanges(released: string, current: string): Promise<string[]> {
  const changes = await diff(buildSchema(released), buildSchema(current));
  return changes.filter((change) => change.criticality.level === CriticalityLevel.Breaking).map((change) => `GraphQL: ${change.message}`);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function openApiBreakingChanges(released: Doc, current: Doc): string[] {
  const found: string[] = [];
  for (const [route, item] of Object.entries<Doc>(released.paths ?? {})) {
    for (const method of METHODS) {
      const before = item[method];
      if (!before) continue;
      const where = `${method.toUpperCase()} ${route}`;
      const after = current.paths?.[route]?.[method];
      if (!after) {
        found.push(`OpenAPI: ${where} removed`);
        continue;
      }
      compareParameters(where, released, before, current, after, found);
      compareBody(where, released, before, current, after, found);
      compareResponses(where, released, before, current, after, found);
    }
  }
  return found;
}

function compareParameters(where: string, oldDoc: Doc, before: Doc, newDoc: Doc, after: Doc, found: string[]): void {
  const key = (p: Doc) => `${p.in} ${p.name}`;
  const now = new Map<string, Doc>((after.parameters ?? []).map((p: Doc) => [key(p), p]));
  for (const old of before.parameters ?? []) {
    const label = `OpenAPI: ${where} ${key(old)}`;
    const next = now.get(key(old));
    if (!next) {
      found.push(`${label} removed`);
      continue;
    }
    if (next.required && !old.required) found.push(`${label} became required`);
    compareInput(label, parameterSchema(oldDoc, old), parameterSchema(newDoc, next), found);
  }
  for (const next of after.parameters ?? []) {
    if (next.required && !(before.parameters ?? []).some((p: Doc) => key(p) === key(next))) {
      found.push(`OpenAPI: ${where} ${key(next)} added as required`);
    }
  }
}

/** A parameter's schema, a JSON query value (3.0 `content`, 3.1 `contentMediaType`) as the type `json`. */
function parameterSchema(doc: Doc, parameter: Doc): Schema {
  if (parameter.content) return { type: 'json' };
  const { schema } = unwrap(doc, parameter.schema);
  if (schema?.contentMediaType === 'application/json') return { ...schema, type: 'json' };
  return schema;
}

function compareBody(where: string, oldDoc: Doc, before: Doc, newDoc: Doc, after: Doc, found: string[]): void {
  const oldBody = unwrap(oldDoc, before.requestBody?.content?.['application/json']?.schema).schema;
  if (!oldBody) return;
  const newBody = unwrap(newDoc, after.requestBody?.content?.['application/json']?.schema).schema ?? {};
  const oldRequired = new Set<string>(oldBody.required ?? []);
  for (const name of newBody.required ?? []) if (!oldRequired.has(name)) found.push(`OpenAPI: ${where} body field ${name} became required`);
  for (const [name, schema] of Object.entries<Schema>(oldBody.properties ?? {})) {
    const label = `OpenAPI: ${where} body field ${name}`;
    const next = newBody.properties?.[name];
    if (!next) {
      found.push(`${label} removed`);
      continue;
    }
    const a = unwrap(oldDoc, schema);
    const b = unwrap(newDoc, next);
    if (a.nullable && !b.nullable) found.push(`${label} no longer accepts null`);
    compareInput(label, a.schema, b.schema, found);
  }
}

/** What a client may send that is now refused. */
function compareInput(label: string, before: Schema, after: Schema, found: string[]): void {
  if (!before || !after) return;
  const type = (s: Schema) => (s.enum && !s.type ? 'enum' : (s.type ?? 'any'));
  if (type(before) !== 'any' && type(before) !== type(after)) found.push(`${label} type ${type(before)} → ${type(after)}`);
  if (after.maxLength !== undefined && !(before.maxLength !== undefined && before.maxLength <= after.maxLength)) {
    found.push(`${label} maxLength ${before.maxLength ?? 'none'} → ${after.maxLength}`);
  }
  if (after.maximum !== undefined && !(before.maximum !== undefined && before.maximum <= after.maximum)) {
    found.push(`${label} maximum ${before.maximum ?? 'none'} → ${after.maximum}`);
  }
  if (after.minimum !== undefined && !(before.minimum !== undefined && before.minimum >= after.minimum)) {
    found.push(`${label} minimum ${before.minimum ?? 'none'} → ${after.minimum}`);
  }
  if (after.pattern !== undefined && after.pattern !== before.pattern)
    found.push(`${label} pattern ${before.pattern ? 'changed' : 'added'}`);
  if (Array.isArray(before.enum) && Array.isArray(after.enum)) {
    for (const value of before.enum) if (!after.enum.includes(value)) found.push(`${label} value ${JSON.stringify(value)} removed`);
  }
}

function compareResponses(where: string, oldDoc: Doc, before: Doc, newDoc: Doc, after: Doc, found: string[]): void {
  for (const [status, response] of Object.entries<Doc>(before.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    const next = after.responses?.[status];
    if (!next) {
      found.push(`OpenAPI: ${where} response ${status} removed`);
      continue;
    }
    compareOutput(
      `OpenAPI: ${where} ${status}`,
      oldDoc,
      response.content?.['application/json']?.schema,
      newDoc,
      next.content?.['application/json']?.schema,
      found,
      new Set(),
    );
  }
}

/** What a client reads that is gone, may now be absent, or may now be null. */
function compareOutput(label: string, oldDoc: Doc, before: Schema, newDoc: Doc, after: Schema, found: string[], seen: Set<string>): void {
  const a = unwrap(oldDoc, before);
  const b = unwrap(newDoc, after);
  if (!a.schema || !b.schema) return;
  if (!a.nullable && b.nullable) found.push(`${label} may now be null`);
  const visit = `${a.ref ?? ''}→${b.ref ?? ''}`;
  if (a.ref && seen.has(visit)) return;
  seen.add(visit);
  if (a.schema.type === 'array' && b.schema.type === 'array') {
    compareOutput(`${label}[]`, oldDoc, a.schema.items, newDoc, b.schema.items, found, seen);
    return;
  }
  const required = new Set<string>(b.schema.required ?? []);
  for (const [name, schema] of Object.entries<Schema>(a.schema.properties ?? {})) {
    const next = b.schema.properties?.[name];
    if (!next) {
      found.push(`${label} field ${name} removed`);
      continue;
    }
    if ((a.schema.required ?? []).includes(name) && !required.has(name)) found.push(`${label} field ${name} no longer required`);
    compareOutput(`${label}.${name}`, oldDoc, schema, newDoc, next, found, seen);
  }
}

/** A schema with its $ref followed and its null alternative (3.0 or 3.1) taken off. */
function unwrap(doc: Doc, schema: Schema): { schema: Schema; nullable: boolean; ref?: string } {
  let nullable = false;
  let ref: string | undefined;
  let current = schema;
  for (let i = 0; i < 10 && current; i++) {
    if (current.$ref) {
      ref = current.$ref;
      current = doc.components?.schemas?.[String(current.$ref).replace('#/components/schemas/', '')];
      continue;
    }
    if (current.nullable === true) nullable = true;
    if (Array.isArray(current.anyOf)) {
      const isNull = (s: Schema) =>
        s?.type === 'null' || (s?.nullable === true && Array.isArray(s.enum) && s.enum.every((v: unknown) => v === null));
      const rest = current.anyOf.filter((s: Schema) => !isNull(s));
      if (rest.length < current.anyOf.length) nullable = true;
      if (rest.length === 1) {
        const { anyOf: _anyOf, ...siblings } = current;
        current = { ...siblings, ...rest[0] };
        if (rest[0].$ref) current = rest[0];
        continue;
      }
    }
    break;
  }
  return { schema: current, nullable, ref };
}

/** The text of CHANGELOG.md's `## Unreleased` section (up to the next `## `). */
export function unreleasedSection(changelog: string): string {
  const start = changelog.search(/^## Unreleased\b/m);
  if (start < 0) return '';
  const rest = changelog.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

export interface ContractCheck {
  breaking: string[];
  unannounced: string[];
}

export async function checkContract(files: {
  releasedSdl: string;
  sdl: string;
  releasedOpenApi: Doc;
  openApi: Doc;
  changelog: string;
}): Promise<ContractCheck> {
  const breaking = [
    ...(await graphqlBreakingChanges(files.releasedSdl, files.sdl)),
    ...openApiBreakingChanges(files.releasedOpenApi, files.openApi),
  ];
  const announced = unreleasedSection(files.changelog);
  return { breaking, unannounced: breaking.filter((finding) => !announced.includes(finding)) };
}

export function readContractFiles() {
  const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
  return {
    releasedSdl: read('contract/released/schema.graphql'),
    sdl: read('schema.graphql'),
    releasedOpenApi: JSON.parse(read('contract/released/openapi.json')) as Doc,
    openApi: JSON.parse(read('openapi.json')) as Doc,
    changelog: read('CHANGELOG.md'),
  };
}

if (require.main === module) {
  checkContract(readContractFiles()).then(
    ({ breaking, unannounced }) => {
      for (const finding of breaking) console.log(`${unannounced.includes(finding) ? 'UNANNOUNCED' : 'announced  '} ${finding}`);
      if (unannounced.length > 0) {
        console.error(
          `\n${unannounced.length} breaking change(s) for clients not announced in CHANGELOG.md's "## Unreleased" section ` +
            '(list each line above there, verbatim, with what clients must change):',
        );
        for (const finding of unannounced) console.error(`  - \`${finding}\``);
        process.exitCode = 1;
      } else {
        console.log(`\n${breaking.length} breaking change(s) since the released contract, all announced`);
      }
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 2;
    },
  );
}
