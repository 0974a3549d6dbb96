#!/usr/bin/env node
// `npm run demo`: runs src/demo.ts directly (tsx), like bin/cairn.js.
import { register } from 'tsx/esm/api';

register();
await import('../src/demo.ts');
