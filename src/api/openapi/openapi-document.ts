/**
 * The OpenAPI 3.1 document of the /public REST interface, generated from the sources the REST
 * layer itself runs on: REST_ROUTES, each root field's arguments (typed, defaulted and constrained
 * by their rules in `openApiParameterSchema`, placed by `locationOf`) and each route's response
 * selection (shared/schema/rest-visibility.ts): a new argument or output field appears here unasked.
 */
import {
  getNamedType,
  getNullableType,
  GraphQLNonNull,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { hasConditionalRequests } from '../rest/conditional-requests';
import { rootFieldOf } from '../rest/rest-documents';
import { fieldNameOf, locationOf, REST_ROUTES, templateOf, type RestRoute } from '../rest/routes';
import { NULL_SCHEMA, openApiParameterSchema, scalarTypeSchema, type OpenApiSchema } from './argument-schema';
import { restSpellingOfEnumValue, SCALAR } from '../contract/validation/coerce';
import { rulesOf } from '../../shared/schema/input-rules';
import { IDEMPOTENCY_KEY_PARAMETER } from '../contract/idempotency-key';

export const OPENAPI_TITLE = 'Vehicle Report Public API';
export const OPENAPI_VERSION = '1.0.0';
export const API_KEY_SCHEME = 'APIKeyHeader';

const ref = (name: string): OpenApiSchema => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (schema: OpenApiSchema) => ({ 'application/json': { schema } });

/** FastAPI's error bodies (api-behaviour.md, "Errors (REST)" and "The 422 body"). */
const ERROR_SCHEMAS: Record<string, OpenApiSchema> = {
  HTTPError: {
    title: 'HTTPError',
    type: 'object',
    properties: { detail: { type: 'string' } },
    required: ['detail'],
  },
  ValidationError: {
    title: 'ValidationError',
    type: 'object',
    properties: {
      loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      msg: { type: 'string' },
      type: { type: 'string' },
      input: {},
      ctx: { type: 'object' },
    },
    required: ['loc', 'msg', 'type'],
  },
  HTTPValidationError: {
    title: 'HTTPValidationError',
    type: 'object',
    properties: { detail: { type: 'array', items: ref('ValidationError') } },
  },
};

const httpError = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: jsonContent(ref('HTTPError')),
});

/**
 * What the routes do besides running their field, which the schema cannot tell: lead creation's
 * quota (403) and Idempotency-Key header (409 on reuse with another body), read by the resolver
 * from the request headers rather than taken as an argument.
 */
const ROUTE_EXTRAS: Record<string, { responses: Record<string, unknown>; parameters: unknown[] }> = {
  'Mutation.createLead': {
    responses: {
      '403': httpError('Subscription quota exhausted: nothing is created, nothing is sent'),
      '409': httpError('Idempotency-Key already used with a different body'),
    },
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: IDEMPOTENCY_KEY_PARAMETER.description,
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
      },
    ],
  },
};

/** Conditional requests and cursors (issue 26): the headers of the GET routes. */
const textHeader = (name: string, description: string) => ({ [name]: { description, schema: { type: 'string' } } });
const CACHE_CONTROL_HEADER = textHeader('Cache-Control', '`private, no-cache`: tenant data, never kept by a shared cache');
const ETAG_HEADER = textHeader('ETag', 'strong entity tag of this answer, derived from the row version; send it back in If-None-Match');
const LINK_HEADER = textHeader('Link', 'the next page, `<...&cursor=...>; rel="next"` (RFC 8288); absent on the last page');
const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETags of a copy the client holds: `304 Not Modified` (no body) when one is current',
  schema: { type: 'string' },
};

const COMMON_ERROR_RESPONSES = {
  '401': httpError('Missing (`Not authenticated`, with `WWW-Authenticate: APIKey`) or invalid API key (`Invalid API key`)'),
  '422': { description: 'Validation Error', content: jsonContent(ref('HTTPValidationError')) },
  '429': httpError('Rate limit exceeded', {
    'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } },
    RateLimit: { description: 'IETF httpapi RateLimit header', schema: { type: 'string' } },
    'RateLimit-Policy': { description: 'IETF httpapi RateLimit-Policy header', schema: { type: 'string' } },
  }),
  // What the HTTP layer answers before the operation runs (README, "Limits, headers and outages").
  '400': httpError('A body that cannot be read: bytes that do not decode, or JSON nested too deep (`There was an error parsing the body`)'),
  '408': httpError('The client did not send its whole request in time; the connection is closed'),
  '413': httpError('Request body over 100 kB'),
  '414': httpError('Query string over 8 KiB'),
  '431': httpError('Request line and headers over 16 KiB'),
  '503': httpError('The database is unavailable, or the request took longer than the deadline: retry after `Retry-After`', {
    'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } },
  }),
};

export function buildOpenApiDocument(schema: GraphQLSchema): object {
  const components = new OutputSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of REST_ROUTES) {
    (paths[templateOf(route)] ??= {})[route.method.toLowerCase()] = operationOf(schema, route, components);
  }
  for (const name of Object.keys(ERROR_SCHEMAS)) {
    if (components.schemas[name]) throw new Error(`GraphQL type ${name} collides with an error schema of the OpenAPI document`);
  }
  return {
    // 3.1, as FastAPI publishes: JSON Schema 2020-12, where a nullable value is `anyOf: [T, {type: 'null'}]`
    // (OpenAPI 3.0's `nullable` had no spelling for a nullable $ref that ajv, orval and Zodios all read).
    openapi: '3.1.0',
    info: {
      title: OPENAPI_TITLE,
      version: OPENAPI_VERSION,
      description:
        'An empty query value (`?limit=`, `?valid=`, `?order_by=`) is a value, not an absent parameter: it is validated ' +
        'against the parameter schema and refused (422) wherever that schema has no empty spelling. ' +
        'Unknown query parameters are ignored, as FastAPI ignores them.',
    },
    servers: [{ url: '/' }],
    security: [{ [API_KEY_SCHEME]: [] }],
    paths,
    components: {
      schemas: { ...components.schemas, ...ERROR_SCHEMAS },
      securitySchemes: { [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    },
  };
}

function operationOf(schema: GraphQLSchema, route: RestRoute, components: OutputSchemas): Record<string, unknown> {
  const field = rootFieldOf(schema, route);
  const extras = ROUTE_EXTRAS[route.field];
  const parameters: unknown[] = [];
  const bodyProperties: Record<string, OpenApiSchema> = {};
  const bodyRequired: string[] = [];

  for (const arg of field.args) {
    const location = locationOf(route, arg.name);
    const argSchema = openApiParameterSchema(arg, location === 'body' ? 'body' : 'parameter');
    const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
    if (location === 'body') {
      bodyProperties[arg.name] = argSchema;
      if (required) bodyRequired.push(arg.name);
      continue;
    }
    parameters.push({
      name: location === 'header' ? arg.name.replaceAll('_', '-') : arg.name,
      in: location,
      // OpenAPI requires path parameters to be required, whatever their GraphQL type says.
      required: location === 'path' || required,
      ...(arg.description ? { description: arg.description } : {}),
      // A JSON value in a query string travels as its JSON text: a string whose content is JSON, as
      // FastAPI publishes a `Json` query parameter. Generators then send the text, which means exactly
      // the filter; with `content` or an object schema, orval and Zodios sent deepObject brackets and
      // hey-api the exploded form (`?type=remote`), which FastAPI would have ignored or misread.
      schema: getNamedType(arg.type).name === SCALAR.JSON && location === 'query' ? jsonQuerySchema(arg) : argSchema,
    });
  }
  parameters.push(...(extras?.parameters ?? []));
  const conditional = hasConditionalRequests(route.field);
  if (conditional) parameters.push(IF_NONE_MATCH_PARAMETER);
  const paged = field.args.some((arg) => arg.name === 'cursor');

  const responses: Record<string, unknown> = {
    [String(route.status)]: {
      description: route.status === 201 ? 'Created' : 'Successful Response',
      ...(route.method === 'GET'
        ? { headers: { ...CACHE_CONTROL_HEADER, ...(conditional ? ETAG_HEADER : {}), ...(paged ? LINK_HEADER : {}) } }
        : {}),
      // Root fields always return the REST selection of their type (rest-documents.ts). A root field
      // GraphQL may answer null (a missing report) is a 404 over REST, never a null body.
      content: jsonContent(
        components.schemaOf(new GraphQLNonNull(getNullableType(field.type)), undefined, `${route.method} ${route.path}`),
      ),
    },
    ...(conditional
      ? {
          '304': {
            description: 'Not Modified: `If-None-Match` names the current ETag; no body',
            headers: { ...CACHE_CONTROL_HEADER, ...ETAG_HEADER },
          },
        }
      : {}),
    ...(route.notFound ? { '404': httpError(route.notFound) } : {}),
    ...(extras?.responses ?? {}),
    ...COMMON_ERROR_RESPONSES,
  };

  return {
    operationId: fieldNameOf(route),
    tags: [route.tag],
    summary: route.summary,
    ...(field.description ? { description: field.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(Object.keys(bodyProperties).length > 0
      ? {
          requestBody: {
            required: true,
            content: jsonContent({
              title: `${field.name} request`,
              type: 'object',
              properties: bodyProperties,
              ...(bodyRequired.length > 0 ? { required: bodyRequired } : {}),
            }),
          },
        }
      : {}),
    responses,
  };
}

function jsonQuerySchema(arg: GraphQLArgument): OpenApiSchema {
  const rules = rulesOf(arg);
  const size = rules.find((rule) => rule.kind === 'jsonSize');
  const object = rules.some((rule) => rule.kind === 'jsonObject');
  return {
    type: 'string',
    contentMediaType: 'application/json',
    contentSchema: object ? { type: 'object', additionalProperties: true } : {},
    ...(size?.kind === 'jsonSize' ? { maxLength: size.maxLength } : {}),
    description:
      `${object ? 'A JSON object' : 'A JSON value'} as its JSON text, URL-encoded (\`?${arg.name}=%7B%22folder_sold%22%3A...%7D\`)` +
      `${size?.kind === 'jsonSize' ? `, at most ${size.maxLength} characters` : ''}. The deepObject spelling ` +
      `\`${arg.name}[folder_sold][status]=true\` means the same filter (each member's value read as JSON when it is JSON text).`,
  };
}

/**
 * JSON schemas of GraphQL output types as REST shows them. A type shown with its whole REST
 * selection becomes a named component; a field with its own REST selection (e.g. the compact
 * report's `profile`: id name email phone) is described inline with just those fields.
 */
class OutputSchemas {
  readonly schemas: Record<string, OpenApiSchema> = {};

  /** `selection`: the explicit sub-selection, or undefined for the type's REST selection. */
  schemaOf(type: GraphQLOutputType, selection: SelectionSetNode | undefined, where: string): OpenApiSchema {
    const schema = this.schemaOfNullable(getNullableType(type), selection, where);
    // An empty schema is any JSON value, null included.
    return isNonNullType(type) || Object.keys(schema).length === 0 ? schema : { anyOf: [schema, NULL_SCHEMA] };
  }

  private schemaOfNullable(type: GraphQLOutputType, selection: SelectionSetNode | undefined, where: string): OpenApiSchema {
    if (isListType(type)) return { type: 'array', items: this.schemaOf(type.ofType, selection, where) };
    if (isEnumType(type)) return { type: 'string', enum: type.getValues().map(restSpellingOfEnumValue) };
    if (isScalarType(type)) return scalarTypeSchema(type);
    if (!isObjectType(type)) throw new Error(`OpenAPI: ${where} returns ${String(type)}, which REST cannot show`);
    if (selection) return this.objectSchema(type, selection, where);
    if (!(type.name in this.schemas)) {
      this.schemas[type.name] = {}; // placeholder: a cycle refers to the component being built
      this.schemas[type.name] = this.objectSchema(type, undefined, where);
    }
    return ref(type.name);
  }

  private objectSchema(type: GraphQLObjectType, selection: SelectionSetNode | undefined, where: string): OpenApiSchema {
    const fields = type.getFields();
    const shown = selection ? selectedFields(type, selection) : restFieldsOf(type);
    const properties: Record<string, OpenApiSchema> = {};
    const required: string[] = [];
    for (const { field, selection: sub } of shown) {
      const schema = this.schemaOf(field.type, sub, `${where} → ${type.name}.${field.name}`);
      properties[field.name] = field.description && !('$ref' in schema) ? { ...schema, description: field.description } : schema;
      if (isNonNullType(fields[field.name]!.type)) required.push(field.name);
    }
    // An inline selection is not the whole type: it gets neither the type's title nor description.
    return {
      ...(selection ? {} : { title: type.name, ...(type.description ? { description: type.description } : {}) }),
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
    };
  }
}

/** A field shown, with its own REST selection when it has one. */
type ShownField = { field: GraphQLField<unknown, unknown>; selection?: SelectionSetNode };

/** The fields `restSelectionOf` selects: all but `rest: false`; a string is the field's selection. */
function restFieldsOf(type: GraphQLObjectType): ShownField[] {
  return Object.values(type.getFields()).flatMap((field) => {
    const rest = (field.extensions as { rest?: false | string }).rest;
    if (rest === false) return [];
    return [{ field, ...(typeof rest === 'string' ? { selection: selectionSetOf(rest) } : {}) }];
  });
}

function selectedFields(type: GraphQLObjectType, selection: SelectionSetNode): ShownField[] {
  return selection.selections.map((node) => {
    if (node.kind !== 'Field') throw new Error(`OpenAPI: REST selections of ${type.name} use plain fields only`);
    const field = type.getFields()[node.name.value];
    if (!field) throw new Error(`OpenAPI: ${type.name} has no field ${node.name.value}`);
    const named = getNamedType(field.type);
    if (isObjectType(named) && !node.selectionSet) throw new Error(`OpenAPI: ${type.name}.${field.name} needs a selection`);
    return { field, ...(node.selectionSet ? { selection: node.selectionSet } : {}) };
  });
}

const selectionSetOf = (selection: string) => (parse(`{ ${selection} }`).definitions[0] as OperationDefinitionNode).selectionSet;
