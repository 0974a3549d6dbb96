import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // The server's own tables, the framework's (idempotency) and every area's tables.ts (sub-areas included).
  schema: ['./src/storage/tables.ts', './src/framework/tables.ts', './src/domains/**/tables.ts'],
  out: './src/storage/migrations',
});
