import { openApiParameterSchema } from '../../../src/api/openapi/argument-schema';
import { fieldArgs, LEAD_RULES, REPORT_RULES, schema, withRules } from './helpers';

const reportArgs = Object.fromEntries(fieldArgs(schema, 'Query', 'reports').map((a) => [a.name, a]));
const leadArgs = Object.fromEntries(fieldArgs(schema, 'Mutation', 'createLead').map((a) => [a.name, a]));

describe('openApiParameterSchema', () => {
  it('integers carry default, bounds and nullability (JSON Schema 2020-12: anyOf null, as FastAPI publishes)', () => {
    expect(openApiParameterSchema(withRules(reportArgs.limit!, REPORT_RULES.limit))).toEqual({
      anyOf: [{ type: 'integer', format: 'int32', minimum: 0, maximum: 1000 }, { type: 'null' }],
      default: 100,
    });
    // A query parameter is absent or text: never null.
    expect(openApiParameterSchema(withRules(reportArgs.limit!, REPORT_RULES.limit), 'parameter')).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: 1000,
      default: 100,
    });
    expect(openApiParameterSchema(withRules(reportArgs.offset!, REPORT_RULES.offset))).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: 2147483647,
      default: 0,
    });
  });

  it('maps every scalar', () => {
    const orNull = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
    expect(openApiParameterSchema(reportArgs.valid!)).toEqual({ ...orNull({ type: 'boolean' }), default: true });
    expect(openApiParameterSchema(reportArgs.token!)).toEqual(orNull({ type: 'string', format: 'uuid' }));
    expect(openApiParameterSchema(reportArgs.created_at__gte!)).toEqual(orNull({ type: 'string', format: 'date-time' }));
    expect(openApiParameterSchema(reportArgs.vin!)).toEqual(orNull({ type: 'string' }));
    expect(openApiParameterSchema(reportArgs.score!)).toEqual(orNull({ type: 'number', format: 'double' }));
    expect(openApiParameterSchema(reportArgs.data__contains!)).toEqual({
      description: expect.stringContaining('JSON'),
    });
    expect(openApiParameterSchema(reportArgs.tokens!)).toEqual(orNull({ type: 'array', items: { type: 'string', format: 'uuid' } }));
  });

  it('enums list their values; defaults and maxLength are documented', () => {
    expect(openApiParameterSchema(reportArgs.type!)).toEqual({
      anyOf: [{ type: 'string', enum: ['inspection', 'counter_inspection', 'after_sale', 'marketing'] }, { type: 'null' }],
    });
    expect(openApiParameterSchema(leadArgs.lang!)).toEqual({ type: 'string', enum: ['fr', 'en', 'es'], default: 'fr' });
    expect(openApiParameterSchema(withRules(leadArgs.custom_sms!, LEAD_RULES.custom_sms))).toEqual({
      anyOf: [{ type: 'string', maxLength: 480 }, { type: 'null' }],
    });
  });
});
