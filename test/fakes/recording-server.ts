import { createServer, type IncomingMessage } from 'node:http';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';

export interface RecordedRequest {
  jobId: number;
  body: unknown;
  /** When the request arrived (epoch ms). */
  at: number;
  /** When the reply was sent (epoch ms). */
  repliedAt?: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Hold the reply this long (a slow upstream). */
  delayMs?: number;
}

/** Decides the reply to each request; `seen` counts earlier requests for the same job id. */
export type Responder = (request: RecordedRequest, seen: number) => Reply;

/** A loopback upstream that records every POST (job id from `x-job-id`) and answers as told. */
export async function startRecordingServer(responder: Responder = () => ({ status: 200 })) {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const record: RecordedRequest = { jobId: Number(req.headers['x-job-id']), body: await readJson(req), at: Date.now() };
    const seen = requests.filter((earlier) => earlier.jobId === record.jobId).length;
    requests.push(record);
    const reply = responder(record, seen);
    const send = () => {
      if (res.destroyed) return;
      record.repliedAt = Date.now();
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { ok: reply.status < 300 }));
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  });
  const listening = await listenOnLoopback(server);
  return {
    url: `${listening.url}/deliver`,
    requests,
    /** Requests per job id. */
    counts(): Map<number, number> {
      const counts = new Map<number, number>();
      for (const request of requests) counts.set(request.jobId, (counts.get(request.jobId) ?? 0) + 1);
      return counts;
    },
    close: listening.close,
  };
}

export type RecordingServer = Awaited<ReturnType<typeof startRecordingServer>>;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}
