import type { Server } from 'node:http';

/**
 * Stops accepting connections, lets in-flight requests finish, and after `deadlineMs` cuts
 * whatever is still open. Resolves once the server is closed.
 */
export function closeGracefully(server: Server, deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    // Keep-alive sockets with no request in flight would otherwise hold close() open.
    server.closeIdleConnections();
  });
}
