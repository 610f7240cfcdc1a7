import { randomBytes } from 'node:crypto';
import { createJobRegistry } from '../../../src/jobs/registry.ts';
import { createWorker } from '../../../src/jobs/worker.ts';
import { createLogger } from '../../../src/logger.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { startRecordingServer } from '../fakes/recording-server.ts';
import { createPostHandler } from '../support/post-handler.ts';

const url = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `jobs_dbg_${randomBytes(4).toString('hex')}`;
const N = Number(process.argv[2] ?? 100);
const t0 = Date.now();
const log = (...a: unknown[]) => console.log(Date.now() - t0, ...a);
const recorder = await startRecordingServer();
log('recorder');
const first = await openStore(url, { schema, poolMax: 4 });
log('first open');
const second = await openStore(url, { schema, poolMax: 4 });
log('second open');
let finished = 0;
const workers = [first, second].map((store, index) => createWorker({
  store, logger: createLogger({ level: 'warn' }), concurrency: 4, retrySchedule: [0, 50], leaseMs: 30_000, owner: `i${index}`,
  onJobFinished: () => finished++, registry: createJobRegistry({ post: createPostHandler({ url: recorder.url }) }),
}));
const jobs = await first.enqueue(Array.from({ length: N }, (_, n) => ({ kind: 'post', payload: { n } })));
log('enqueued', jobs.length);
for (const w of workers) w.start();
const iv = setInterval(() => log('finished', finished, 'sent', recorder.requests.length), 500);
while (finished < N) await new Promise((r) => setTimeout(r, 20));
clearInterval(iv);
log('done');
await Promise.all(workers.map((w) => w.stop(1000)));
log('stopped');
await first.close(); await second.close(); await recorder.close();
log('closed');
