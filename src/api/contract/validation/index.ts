/**
 * Reading REST arguments from text and JSON with FastAPI/Pydantic v2 behaviour and 422 items.
 * Entry point: `validateArguments`; malformed JSON bodies: `parseJsonBody` / `jsonDecodeError`.
 */

export type { Location, LocSegment, PydanticErrorItem } from '../pydantic-errors';
export { validateArguments, type ValidationInput, type ValidationResult } from './validate-arguments';
export { parseJsonBody, jsonDecodeError, pythonJsonLoads, type JsonBodyParse } from './json-body';
