#!/usr/bin/env node
// Runs Cairn's TypeScript sources directly (tsx), so `npm ci && npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
