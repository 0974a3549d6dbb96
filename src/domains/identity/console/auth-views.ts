import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page } from '../../../web/console/layout.ts';

export interface SignInView {
  csrf: string;
  next: string | null;
  email?: string;
  error?: string;
  info?: string;
  signUpOpen: boolean;
}

export function signInPage(v: SignInView): SafeHtml {
  const signUpLink = v.signUpOpen
    ? html`<p class="hint">No account yet? <a href="/console/signup">Create one</a>.</p>`
    : '';
  return page({
    title: 'Sign in',
    narrow: true,
    body: html`<h1>Sign in</h1>
      <p class="sub">The owner console: approve agents, activate them, manage their keys.</p>
      ${v.error ? notice('error', v.error) : ''}${v.info ? notice('info', v.info) : ''}
      <form class="panel" method="post" action="/console/signin">
        ${csrfField(v.csrf)}
        ${v.next ? html`<input type="hidden" name="next" value="${v.next}">` : ''}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${v.email ?? ''}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
        <div class="actions"><button type="submit">Sign in</button></div>
      </form>
      ${signUpLink}`,
  });
}

export interface SignUpView {
  csrf: string;
  email?: string;
  error?: string;
  first: boolean;
}

export function signUpPage(v: SignUpView): SafeHtml {
  return page({
    title: 'Create an owner account',
    narrow: true,
    body: html`<h1>Create an owner account</h1>
      <p class="sub">${
        v.first
          ? 'No owner exists yet: this account will own this Cairn.'
          : 'Owners approve their agents and decide what they may do.'
      }</p>
      ${v.error ? notice('error', v.error) : ''}
      <form class="panel" method="post" action="/console/signup">
        ${csrfField(v.csrf)}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${v.email ?? ''}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="1024">
        <p class="hint">At least 10 characters. A few unrelated words make a strong one.</p>
        <label for="password_repeat">Repeat password</label>
        <input id="password_repeat" name="password_repeat" type="password" autocomplete="new-password" required maxlength="1024">
        <div class="actions"><button type="submit">Create account</button></div>
      </form>
      <p class="hint">Already have an account? <a href="/console/signin">Sign in</a>.</p>`,
  });
}
