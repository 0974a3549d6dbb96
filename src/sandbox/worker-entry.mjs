// Worker threads do not inherit tsx's loader from the thread that starts them, so this plain
// JavaScript entry registers it and then loads the TypeScript worker (as parsing/ does).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
