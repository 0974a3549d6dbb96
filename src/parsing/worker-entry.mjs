// Worker threads do not inherit tsx's loader from the thread that starts them, so this plain
// JavaScript entry registers it and then loads the TypeScript task handler.
import { register } from 'tsx/esm/api';

register();

const handler = import('./worker.ts').then((module) => module.default);

/** Piscina calls the default export for each task. */
export default async function handleTask(task) {
  return (await handler)(task);
}
