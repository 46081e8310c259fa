// The fetch-model container of each agent pod (templates/_embedded-model.tpl), run as
//   node --input-type=module --eval <this file> -- <model>
// in the services image: scripts/fetch-model.mjs fetches the model into $WAP_MODEL_DIR, again
// after a failure (30 s, doubling to 10 min), then this process idles on a timer until the pod stops.
//
// The script runs in a worker thread of this process, the container's pid 1: a crash of the
// fetch (even an uncaught one) ends the worker, not the container, so the pod stays ready and the
// agent keeps serving its other models. And the script's lock records pid 1, which the agent
// container (whose own pid 1 is alive) reads as "still fetching" with the progress, while the
// lock's heartbeat decides, as between two machines; a lock a crashed worker left is taken over
// once its heartbeat is 2 minutes old.
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const model = process.argv[process.argv.length - 1];
const script = pathToFileURL(`${process.cwd()}/scripts/fetch-model.mjs`);
process.on('SIGTERM', () => process.exit(0));

for (let attempt = 1, wait = 30; ; attempt++, wait = Math.min(wait * 2, 600)) {
  const worker = new Worker(script, { argv: [model], execArgv: [] });
  const code = await new Promise((resolve) => {
    worker.on('error', (err) => console.error('fetch-model:', err));
    worker.on('exit', resolve);
  });
  if (code === 0) break;
  console.log(`fetch-model: attempt ${attempt} ended with exit code ${code}; again in ${wait} s`);
  await new Promise((resolve) => setTimeout(resolve, wait * 1000));
}
console.log(`fetch-model: ${model} is in place; idle until the pod stops`);
setInterval(() => {}, 2 ** 31 - 1);
