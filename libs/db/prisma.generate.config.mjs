// Passed as `prisma generate --config` by @wap/db so that generation never
// loads a service's prisma.config.ts (which may need DATABASE_URL): generating
// a client needs no configuration.
export default {};
