import path from 'node:path';

/**
 * Why the store named by DATABASE_URL could not be opened, in one line an operator can act on
 * (`DATABASE_URL: connection refused at 127.0.0.1:5433`), or undefined when the error is not one
 * of the known ways a database is out of reach. The line names the host, port, database or file,
 * never the URL itself, so a password in it is never shown.
 */
export function storeOpenProblem(error: unknown, databaseUrl: string): string | undefined {
  const problem = databaseUrl.startsWith('sqlite:') ? sqliteProblem(error, databaseUrl.slice('sqlite:'.length)) : postgresProblem(error, databaseUrl);
  return problem === undefined ? undefined : `DATABASE_URL: ${problem}`;
}

interface ErrorFields {
  code?: unknown;
  errcode?: unknown;
  message?: unknown;
  severity?: unknown;
  address?: unknown;
  port?: unknown;
  errors?: unknown;
}

const fieldsOf = (error: unknown): ErrorFields => (error !== null && typeof error === 'object' ? (error as ErrorFields) : {});

/** A connection to every address of a host name fails as one AggregateError; its parts carry the codes. */
function networkCode(error: unknown): string | undefined {
  const { code, errors } = fieldsOf(error);
  if (typeof code === 'string') return code;
  return Array.isArray(errors) ? networkCode(errors[0]) : undefined;
}

/** `host:port` of the server as DATABASE_URL names it (never its user or password), else as the socket reported it. */
function serverOf(databaseUrl: string, error: unknown): { host: string; at: string } {
  try {
    const url = new URL(databaseUrl);
    if (url.hostname !== '') return { host: url.hostname, at: `${url.hostname}:${url.port || '5432'}` };
  } catch {
    // not a URL the WHATWG parser reads (libpq accepts more): fall back to what the socket said
  }
  const { address, port } = fieldsOf(error);
  const host = typeof address === 'string' ? address : 'the server';
  return { host, at: typeof port === 'number' ? `${host}:${port}` : host };
}

const NETWORK: Record<string, (server: { host: string; at: string }) => string> = {
  ECONNREFUSED: ({ at }) => `connection refused at ${at}`,
  ENOTFOUND: ({ host }) => `host ${host} not found`,
  EAI_AGAIN: ({ host }) => `host ${host} could not be resolved (DNS did not answer)`,
  ETIMEDOUT: ({ at }) => `no answer from ${at}`,
  EHOSTUNREACH: ({ at }) => `no route to ${at}`,
  ENETUNREACH: ({ at }) => `no network route to ${at}`,
  ECONNRESET: ({ at }) => `connection reset by ${at}`,
};

function postgresProblem(error: unknown, databaseUrl: string): string | undefined {
  const code = networkCode(error);
  const { message, severity } = fieldsOf(error);
  const server = serverOf(databaseUrl, error);
  const network = code === undefined ? undefined : NETWORK[code];
  if (network) return network(server);
  if (typeof message === 'string' && /timeout exceeded when trying to connect|connection timeout/i.test(message)) return `no answer from ${server.at} in time`;
  // An error PostgreSQL itself sent (it has a severity and a SQLSTATE): `database "x" does not
  // exist` (3D000), `role "x" does not exist` (28000), a failed password (28P01), no right to
  // create the schema (42501), too many connections (53300). Its words name the object, never the password.
  if (typeof severity === 'string' && typeof code === 'string' && typeof message === 'string') return `${message} (at ${server.at})`;
  if (typeof message === 'string' && /SSL|certificate/i.test(message)) return `${message} (at ${server.at})`;
  return undefined;
}

// SQLite's primary result codes (the low byte of node:sqlite's `errcode`).
const SQLITE: Record<number, string> = {
  8: 'the file is read-only',
  13: 'the disk is full',
  14: 'it cannot be opened (is the path a directory, or its directory not writable?)',
  26: 'it is not a SQLite database',
};
const FILE_SYSTEM: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of its path is not a directory',
  EEXIST: 'a part of its path is not a directory',
  ENOSPC: 'the disk is full',
};

function sqliteProblem(error: unknown, location: string): string | undefined {
  const { code, errcode } = fieldsOf(error);
  const reason = typeof errcode === 'number' ? SQLITE[errcode & 0xff] : typeof code === 'string' ? FILE_SYSTEM[code] : undefined;
  return reason === undefined ? undefined : `cannot use the SQLite file ${path.resolve(location)}: ${reason}`;
}
