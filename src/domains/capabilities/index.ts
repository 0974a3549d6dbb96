/** capabilities_describe: what an identity can do now and why. */
export { capabilityOperations } from './operations.ts';
