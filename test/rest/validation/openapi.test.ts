import { openApiParameterSchema } from '../../../src/api/contract/validation';
import { fieldArgs, LEAD_CONSTRAINTS, REPORT_CONSTRAINTS, schema } from './helpers';

const reportArgs = Object.fromEntries(fieldArgs(schema, 'Query', 'reports').map((a) => [a.name, a]));
const leadArgs = Object.fromEntries(fieldArgs(schema, 'Mutation', 'createLead').map((a) => [a.name, a]));

describe('openApiParameterSchema', () => {
  it('integers carry default, bounds and nullability', () => {
    expect(openApiParameterSchema(reportArgs.limit!, REPORT_CONSTRAINTS.limit)).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: 1000,
      nullable: true,
      default: 100,
    });
    expect(openApiParameterSchema(reportArgs.offset!, REPORT_CONSTRAINTS.offset)).toEqual({
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
    expect(openApiParameterSchema(leadArgs.custom_sms!, LEAD_CONSTRAINTS.custom_sms)).toEqual({
      type: 'string',
      maxLength: 480,
      nullable: true,
    });
  });
});
