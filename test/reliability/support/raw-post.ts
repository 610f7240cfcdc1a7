import { request } from 'node:http';

export type RawReply = { kind: 'reply'; status: number; contentType: string | undefined; text: string } | { kind: 'reset'; code: string };

/**
 * POSTs `body` on a connection of its own (no keep-alive pool): a server that answers an oversized
 * body early and closes the socket can then cut only this request, never the next one.
 */
export function postRaw(url: string, path: string, headers: Record<string, string>, body: Buffer): Promise<RawReply> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ kind: 'reply', status: res.statusCode ?? 0, contentType: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'reset', code: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'reset', code: error.code ?? error.message }));
    req.end(body);
  });
}
