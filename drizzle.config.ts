// Config for `npm run db:generate` (drizzle-kit, fetched on demand by npx: it is not in package.json,
// see docs/install.md). A plain object: drizzle-kit's defineConfig only returns its argument.
export default { dialect: 'sqlite', schema: './src/db/schema.ts', out: './migrations' }
