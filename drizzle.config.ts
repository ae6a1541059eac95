// Config for `npm run db:generate`: drizzle-kit is not in package.json; that script installs it
// (npm install --no-save) first, see docs/install.md. A plain object: defineConfig only returns its argument.
export default { dialect: 'sqlite', schema: './src/db/schema.ts', out: './migrations' }
