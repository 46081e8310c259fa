// Database names and the URLs that reach them: no driver loaded, for processes
// that only name databases (the make up supervisor).

/** Plain identifiers only: database names end up in DDL, which cannot take parameters. */
const DB_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkName(dbName: string): string {
  if (!DB_NAME.test(dbName))
    throw new Error(`invalid database name ${JSON.stringify(dbName)} (want ${DB_NAME.source})`);
  return dbName;
}

/** The admin URL with its database swapped for `dbName` (credentials and parameters kept). */
export function databaseUrlFor(adminUrl: string, dbName: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(checkName(dbName))}`;
  return url.toString();
}
