import { registerEnumType } from 'type-graphql';
import { ReportType } from '../../generated/prisma/enums';

// The enum comes from the Prisma schema (one source); GraphQL and REST show the same values.
registerEnumType(ReportType, { name: 'ReportType', description: 'Report type (spec 2.6)' });

export { ReportType };
