import diagnosticsChannel from 'node:diagnostics_channel';
import type { Server } from 'node:http';

/**
 * Stops accepting connections, lets in-flight requests finish, and after `deadlineMs` cuts
 * whatever is still open. Resolves once the server is closed.
 */
export function closeGracefully(server: Server, deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    // server.close() drops only the keep-alive sockets idle at that moment; a socket whose
    // response finishes later would stay open until the client's keep-alive timeout and hold
    // close() for seconds. Drop each one as soon as its in-flight response has gone out.
    const onResponseFinish = (message: unknown) => {
      if ((message as { server?: unknown }).server === server) setImmediate(() => server.closeIdleConnections());
    };
    diagnosticsChannel.subscribe('http.server.response.finish', onResponseFinish);
    const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      diagnosticsChannel.unsubscribe('http.server.response.finish', onResponseFinish);
      resolve();
    });
    // Keep-alive sockets with no request in flight would otherwise hold close() open.
    server.closeIdleConnections();
  });
}
