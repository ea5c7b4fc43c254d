/**
 * REST argument validation with FastAPI/Pydantic v2 behaviour and 422 items.
 * Entry point: `validateArguments`; OpenAPI from the same source: `openApiParameterSchema`;
 * malformed JSON bodies: `parseJsonBody` / `jsonDecodeError`.
 */

export type { Location, LocSegment, PydanticErrorItem } from '../pydantic-errors';
export type { ArgumentConstraints, ConstraintTable } from './constraints';
export { validateArguments, type ValidationInput, type ValidationResult } from './validate-arguments';
export { openApiParameterSchema, scalarTypeSchema, type OpenApiSchema } from '../../openapi/argument-schema';
export { parseJsonBody, jsonDecodeError, pythonJsonLoads, type JsonBodyParse } from './json-body';
