import { connect, show } from './common.js';

document.getElementById('watch').addEventListener('submit', async (event) => {
  event.preventDefault();
  const client = await connect(document.getElementById('token').value.trim());
  const campaign = document.getElementById('campaign').value.trim();
  const lines = [];
  let cursor;
  show('status', 'Watching…');
  for (;;) {
    const answer = await client.call('events_watch', {
      campaign_id: campaign,
      wait_seconds: 20,
      ...(cursor ? { cursor } : {}),
    });
    const body = answer.result?.structuredContent;
    if (!body || body.status === 'ERROR') return show('status', body ?? answer);
    for (const e of body.events) lines.push(`#${e.seq} ${e.kind}`);
    cursor = body.cursor;
    show('events', lines.join('\n'));
    show('status', `Watching… ${lines.length} event(s) so far`);
  }
});
