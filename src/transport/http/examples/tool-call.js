import { connect, show } from './common.js';

document.getElementById('call').addEventListener('submit', async (event) => {
  event.preventDefault();
  show('result', 'Calling…');
  try {
    const client = await connect(document.getElementById('token').value.trim());
    const answer = await client.call('identity_whoami', {});
    show('result', answer.result?.structuredContent ?? answer);
  } catch (err) {
    show('result', `Failed: ${err.message}`);
  }
});
