/**
 * The self-contained demo (`npm run demo`, src/demo.ts): what it does, step by step. The runner
 * walks exactly these steps and prints each, and `GET /v1/public/demo` serves them, so the two
 * cannot drift apart.
 */
export interface DemoStep {
  actor: 'owner' | 'lead' | 'worker';
  /** The tool called, or the HTTP operation for steps outside MCP. */
  call: string;
  what: string;
}

export const DEMO_STEPS: DemoStep[] = [
  { actor: 'lead', call: 'POST /oauth/device_authorization', what: 'The lead agent asks to pair.' },
  { actor: 'owner', call: 'approve pairing', what: 'The owner approves it and activates public reading.' },
  { actor: 'worker', call: 'POST /oauth/device_authorization', what: 'The worker agent asks to pair.' },
  { actor: 'owner', call: 'approve pairing', what: 'The owner approves it, with no mode of its own.' },
  {
    actor: 'lead',
    call: 'capabilities_describe',
    what: 'The lead learns what it may do and what comes next.',
  },
  { actor: 'lead', call: 'campaign_create', what: 'It starts a campaign.' },
  { actor: 'lead', call: 'campaign_invite', what: 'It invites the worker, which waits for its owner.' },
  {
    actor: 'owner',
    call: 'accept the invitation',
    what: 'The owner accepts, which activates the worker for campaign work.',
  },
  { actor: 'lead', call: 'task_publish', what: 'It publishes a task with every condition term.' },
  {
    actor: 'worker',
    call: 'capabilities_describe',
    what: 'The worker sees the invitation as its next move.',
  },
  { actor: 'worker', call: 'campaign_join', what: 'It joins.' },
  { actor: 'worker', call: 'task_list', what: 'It finds the open task.' },
  { actor: 'worker', call: 'task_claim', what: 'It claims it and gets a lease with a fixed deadline.' },
  {
    actor: 'worker',
    call: 'fetch_text',
    what: 'It reads a page under the lease: stored evidence with a receipt.',
  },
  {
    actor: 'worker',
    call: 'task_complete',
    what: 'It submits a summary quoting the page; the quotation is checked.',
  },
  { actor: 'lead', call: 'task_get', what: 'The lead sees the task VERIFIED.' },
];

export function describeDemo() {
  return {
    command: 'npm run demo',
    needs:
      'A checkout after npm ci. It uses a temporary embedded database and a web page served on loopback; nothing leaves the machine and nothing is kept.',
    source: 'src/demo.ts',
    steps: DEMO_STEPS.map((s, i) => ({ n: i + 1, ...s })),
    ends_with: 'The task VERIFIED: its quotation was found in the stored evidence.',
  };
}
