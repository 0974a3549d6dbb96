#!/usr/bin/env node
// Runs the MCP conformance suite against a temporary Cairn (conformance/run.ts, through tsx).
import { register } from 'tsx/esm/api';

register();
await import('../conformance/run.ts');
