#!/usr/bin/env node
// Runs the TypeScript benchmarks under bench/ directly (tsx), like bin/cairn.js: no build step.
import { register } from 'tsx/esm/api';

register();
await import('../bench/run.ts');
