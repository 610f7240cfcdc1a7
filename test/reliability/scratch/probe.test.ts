import { it } from 'vitest';
import { replies, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import { killAllBridges, spawnBridge } from '../../support/spawn-bridge.ts';
import { bridgeEnv, scenarioDir } from '../support/bridge-env.ts';
import { buildLoad, postLoad } from '../support/salesforce-load.ts';

it('probe', async () => {
  const fake = await startFakeMomentum();
  fake.script(() => replies.delayed(5));
  const dir = scenarioDir('probe');
  const env = bridgeEnv({ databaseUrl: `sqlite:${dir.sqliteFile}`, momentumUrl: fake.url, settings: { MOMENTUM_RATE_LIMIT: 'off', WORKER_CONCURRENCY: '8', MOMENTUM_TIMEOUT_MS: '500' } });
  const b = await spawnBridge({ env });
  let acked = 0;
  const t0 = Date.now();
  const timer = setInterval(() => console.log(Date.now() - t0, 'acked', acked, 'fake', fake.requests.length), 250);
  await postLoad(b.url, buildLoad(200, 10), { concurrency: Number(process.env.CONC ?? 16), onOutcome: (_m, o) => void (o.kind === 'acked' && acked++) });
  console.log('posted in', Date.now() - t0);
  let last = -1; let same = 0;
  while (fake.requests.length < 2000) {
    await new Promise((r) => setTimeout(r, 500));
    if (fake.requests.length === last) same++; else { same = 0; last = fake.requests.length; }
    if (same === 10) { console.log('STALL pid', b.child.pid, 'stderr', b.stderr().slice(-2000)); console.log(b.logs.slice(-30).map((l) => JSON.stringify(l)).join('\n')); await new Promise((r) => setTimeout(r, 20000)); break; }
  }
  clearInterval(timer);
  console.log('all forwarded in', Date.now() - t0);
  await killAllBridges(); await fake.close(); dir.remove();
}, 120_000);
