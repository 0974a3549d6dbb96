'use strict';
// Worker threads do not inherit tsx's loader from the thread that starts them, so this plain
// JavaScript entry registers it and then loads the TypeScript task handler. It is CommonJS on
// purpose: piscina loads its entry with require(), and on Node 20 require() of an ES module can
// abort the whole process (a V8 "IsGraphAsync" fatal error seen in CI). Dynamic import() is safe.
let handler;

function load() {
  handler ??= import('tsx/esm/api')
    .then(({ register }) => register())
    .then(() => import('./worker.ts'))
    .then((module) => module.default);
  return handler;
}

/**
 * Piscina calls the exported function for each task. Once the handler is loaded, the thread says
 * it starts on the task (the port in `started`): the task's time limit runs from then (pool.ts).
 */
module.exports = async function handleTask(task) {
  const run = await load();
  const { started, ...job } = task;
  if (started) {
    started.postMessage('started');
    started.close();
  }
  return run(job);
};
