import { describe, expect, it } from 'vitest';
import { isSignInSurface } from './sign-in.ts';

describe('isSignInSurface', () => {
  const surfaces = [
    'https://example.org/login',
    'https://example.org/log-in',
    'https://example.org/signin',
    'https://example.org/sign-in',
    'https://example.org/Login.aspx',
    'https://example.org/login;jsessionid=x',
    'https://example.org/auth/login',
    'https://example.org/account/login',
    'https://example.org/users/sign_in',
    'https://example.org/session/new',
    'https://example.org/sso',
    'https://example.org/saml/acs',
    'https://example.org/wp-login.php',
    'https://example.org/oauth/authorize',
    'https://example.org/oauth2/authorize',
    'https://example.org/o/oauth2/auth',
    'https://example.org/authorize?client_id=abc',
    'https://example.org/realms/r/protocol/openid-connect/auth?client_id=x',
    'https://example.org/anything?client_id=a&response_type=code',
    'https://accounts.google.com/ServiceLogin',
    'https://accounts.google.com/',
    'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    'https://login.live.com/',
    'https://appleid.apple.com/',
    'https://github.com/login',
    'https://github.com/login/oauth/authorize?client_id=1',
    'https://tenant.auth0.com/authorize?response_type=code',
    'https://dev-123.okta.com/oauth2/default/v1/authorize',
    'https://login.example.com/',
    'https://sso.example.com/start',
  ];
  for (const url of surfaces) {
    it(`recognises ${url}`, () => expect(isSignInSurface(new URL(url))).toBe(true));
  }

  const publicPages = [
    'https://example.org/blog/how-to-login-securely',
    'https://example.org/login-help',
    'https://example.org/signup',
    'https://example.org/docs/sso-setup',
    'https://example.org/en/docs/sso',
    'https://example.org/authors',
    'https://example.org/oauth',
    'https://example.org/docs/oauth2/authorization-code-flow',
    'https://example.org/authorize',
    'https://example.org/sessions',
    'https://login.gov/',
    'https://github.com/torvalds/linux',
    'https://www.google.com/search?q=login',
    'https://example.okta.com/',
  ];
  for (const url of publicPages) {
    it(`leaves ${url} readable`, () => expect(isSignInSurface(new URL(url))).toBe(false));
  }
});
