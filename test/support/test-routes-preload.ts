import http from 'node:http';
import { createInterface } from 'node:readline';

/*
 * Preloaded (`node --import`) only by child-process tests, never by the service: it lets a test
 * drive the real `src/server.ts` through situations no production route creates on demand.
 * Requests under /__test/ are answered here, before the app sees them; every other request
 * reaches the real app untouched. Hooking `Server#emit` keeps production code free of test seams
 * whichever way bridge.ts creates its server.
 *
 *   GET /__test/slow                 writes {"message":"test: slow request entered"} to stdout and
 *                                    answers 200 only once the test writes "release\n" to stdin
 *   GET /__test/unhandled-rejection  rejects a promise nobody handles, answers 202
 */

const waiting: Array<() => void> = [];
let stdinLines: ReturnType<typeof createInterface> | undefined;

function releaseOnStdin(): void {
  // Opened lazily so a process that never serves /__test/slow does not read its stdin.
  stdinLines ??= createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'release') for (const finish of waiting.splice(0)) finish();
  });
}

function handleTestRoute(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method === 'GET' && req.url === '/__test/slow') {
    releaseOnStdin();
    waiting.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ finished: true })));
    process.stdout.write(`${JSON.stringify({ message: 'test: slow request entered' })}\n`);
    return true;
  }
  if (req.method === 'GET' && req.url === '/__test/unhandled-rejection') {
    void Promise.reject(new Error('test: deliberate unhandled rejection'));
    res.writeHead(202).end();
    return true;
  }
  return false;
}

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function emitWithTestRoutes(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
  if (event === 'request' && handleTestRoute(args[0] as http.IncomingMessage, args[1] as http.ServerResponse)) return true;
  return Reflect.apply(emit, this, [event, ...args]) as boolean;
};
