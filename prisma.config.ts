import { defineConfig } from 'prisma/config';

// Prisma 7 keeps connection settings out of schema.prisma. The service itself connects through a
// driver adapter (src/platform/db/database.ts); this file only serves the Prisma CLI (generate).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
