import { openApiParameterSchema } from '../../../src/api/openapi/argument-schema';
import { fieldArgs, LEAD_RULES, REPORT_RULES, schema, withRules } from './helpers';

const reportArgs = Object.fromEntries(fieldArgs(schema, 'Query', 'reports').map((a) => [a.name, a]));
const leadArgs = Object.fromEntries(fieldArgs(schema, 'Mutation', 'createLead').map((a) => [a.name, a]));

describe('openApiParameterSchema', () => {
  it('integers carry default, bounds and nullability', () => {
    expect(openApiParameterSchema(withRules(reportArgs.limit!, REPORT_RULES.limit))).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: 1000,
      nullable: true,
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
    expect(openApiParameterSchema(reportArgs.valid!)).toEqual({ type: 'boolean', nullable: true, default: true });
    expect(openApiParameterSchema(reportArgs.token!)).toEqual({ type: 'string', format: 'uuid', nullable: true });
    expect(openApiParameterSchema(reportArgs.created_at__gte!)).toEqual({
      type: 'string',
      format: 'date-time',
      nullable: true,
    });
    expect(openApiParameterSchema(reportArgs.vin!)).toEqual({ type: 'string', nullable: true });
    expect(openApiParameterSchema(reportArgs.score!)).toEqual({ type: 'number', format: 'double', nullable: true });
    expect(openApiParameterSchema(reportArgs.data__contains!)).toEqual({
      description: expect.stringContaining('JSON'),
    });
    expect(openApiParameterSchema(reportArgs.tokens!)).toEqual({
      type: 'array',
      items: { type: 'string', format: 'uuid' },
      nullable: true,
    });
  });

  it('enums list their values; defaults and maxLength are documented', () => {
    expect(openApiParameterSchema(reportArgs.type!)).toEqual({
      type: 'string',
      enum: ['inspection', 'counter_inspection', 'after_sale', 'marketing'],
      nullable: true,
    });
    expect(openApiParameterSchema(leadArgs.lang!)).toEqual({ type: 'string', enum: ['fr', 'en', 'es'], default: 'fr' });
    expect(openApiParameterSchema(withRules(leadArgs.custom_sms!, LEAD_RULES.custom_sms))).toEqual({
      type: 'string',
      maxLength: 480,
      nullable: true,
    });
  });
});
