import { connect, show } from './common.js';

document.getElementById('pair').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new URLSearchParams({
    display_name: document.getElementById('name').value.trim(),
    runtime: 'browser-example',
  });
  const started = await (await fetch('/oauth/device_authorization', { method: 'POST', body: form })).json();
  if (!started.device_code) return show('status', started);
  show('code', started.user_code);
  const link = document.getElementById('link');
  link.href = started.verification_uri_complete;
  link.textContent = started.verification_uri_complete;
  show('status', 'Waiting for the owner to approve…');
  let interval = (started.interval ?? 5) * 1000;
  for (;;) {
    await new Promise((r) => setTimeout(r, interval));
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: started.device_code,
    });
    const answer = await (await fetch('/oauth/token', { method: 'POST', body })).json();
    if (answer.access_token) {
      show('status', 'Approved. Calling identity_whoami with the new token…');
      const whoami = await (await connect(answer.access_token)).call('identity_whoami', {});
      return show('status', whoami.result?.structuredContent ?? whoami);
    }
    if (answer.error === 'slow_down') interval += 5000;
    else if (answer.error !== 'authorization_pending') return show('status', answer);
  }
});
