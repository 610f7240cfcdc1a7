import { describe, expect, it } from 'vitest';

import { withoutPassword } from '../../src/core/setting-problems.ts';
import { listenProblem } from '../../src/http/listen.ts';
import { storeOpenProblem } from '../../src/store/open-failure.ts';

/* The words of the one-line start-up failures; test/process/startup-failures.test.ts runs the real process into each. */

const errorWith = (fields: Record<string, unknown>, message = 'failed') => Object.assign(new Error(message), fields);

describe('storeOpenProblem', () => {
  it('when every address of a host name refused (an AggregateError), then the line names the host and port of the URL', () => {
    // Arrange
    const error = new AggregateError([errorWith({ code: 'ECONNREFUSED' }), errorWith({ code: 'ECONNREFUSED' })]);

    // Act
    const line = storeOpenProblem(error, 'postgres://bridge:secret@localhost/bridge');

    // Assert
    expect(line).toBe('DATABASE_URL: connection refused at localhost:5432');
  });

  it('when the server is an IPv6 literal, then the line keeps its brackets and never the password', () => {
    expect(storeOpenProblem(errorWith({ code: 'ETIMEDOUT' }), 'postgres://u:secret@[::1]:6543/db')).toBe('DATABASE_URL: no answer from [::1]:6543');
  });

  it('when PostgreSQL itself refused, then its own words are the line', () => {
    // Arrange
    const error = errorWith({ code: '28P01', severity: 'FATAL' }, 'password authentication failed for user "bridge"');

    // Act
    const line = storeOpenProblem(error, 'postgresql://bridge:wrong@db.internal:5432/bridge');

    // Assert
    expect(line).toBe('DATABASE_URL: password authentication failed for user "bridge" (at db.internal:5432)');
  });

  it('when a SQLite file is read-only or not a database, then the line says so with its full path', () => {
    expect(storeOpenProblem(errorWith({ code: 'ERR_SQLITE_ERROR', errcode: 8 }), 'sqlite:/data/bridge.db')).toBe(
      'DATABASE_URL: cannot use the SQLite file /data/bridge.db: the file is read-only',
    );
    expect(storeOpenProblem(errorWith({ code: 'ERR_SQLITE_ERROR', errcode: 26 }), 'sqlite:/data/bridge.db')).toBe(
      'DATABASE_URL: cannot use the SQLite file /data/bridge.db: it is not a SQLite database',
    );
  });

  it('when the error is none of the known ways a database is out of reach, then there is no line (the stack is logged instead)', () => {
    expect(storeOpenProblem(new TypeError('bug'), 'postgres://db/bridge')).toBeUndefined();
    expect(storeOpenProblem(errorWith({ code: 'ERR_SQLITE_ERROR', errcode: 1 }), 'sqlite:x.db')).toBeUndefined();
  });
});

describe('listenProblem', () => {
  it('when the port is taken, privileged or the host is not local, then the line names PORT or HOST', () => {
    const config = { PORT: 80, HOST: '10.9.9.9' };

    expect(listenProblem(errorWith({ code: 'EADDRINUSE' }), config)).toBe('PORT: 80 is already in use on 10.9.9.9 (another process listens there)');
    expect(listenProblem(errorWith({ code: 'EACCES' }), config)).toMatch(/^PORT: 80 may not be opened by this process/);
    expect(listenProblem(errorWith({ code: 'EADDRNOTAVAIL' }), config)).toBe('HOST: 10.9.9.9 is not an address of this machine');
    expect(listenProblem(errorWith({ code: 'EMFILE' }), config)).toBeUndefined();
  });
});

describe('withoutPassword', () => {
  it('when a URL holds a password, then it is masked and the rest is kept', () => {
    expect(withoutPassword('postgres://bridge:p%40ss@db:5432/x?schema=a')).toBe('postgres://bridge:***@db:5432/x?schema=a');
    expect(withoutPassword('postgres://bridge@db/x')).toBe('postgres://bridge@db/x');
    expect(withoutPassword('sqlite:data/bridge.db')).toBe('sqlite:data/bridge.db');
  });
});
