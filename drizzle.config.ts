import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // The server's own tables, and every area's tables.ts (sub-areas included).
  schema: ['./src/storage/tables.ts', './src/domains/**/tables.ts'],
  out: './src/storage/migrations',
});
