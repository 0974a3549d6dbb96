/**
 * Tells apart pages whose text is not the content the caller wanted: a sign-in wall, or an
 * empty shell that only a browser running the page's scripts would fill.
 */
import type { PageSurface } from './types.ts';

/** Below this much text outside its password form, a page is a sign-in form rather than an article with a login box. */
const SIGN_IN_MAX_OTHER_CHARS = 500;
/** Below this much visible text, a page with an empty framework root (`#root`, `#app`…) is an app shell… */
const APP_SHELL_MAX_CHARS = 200;
/** …and a page with scripts but no such root is one only when next to nothing is left. */
const SCRIPTED_SHELL_MAX_CHARS = 50;

const ROOT_IDS = ['root', 'app', '__next', '__nuxt', 'main-app', 'svelte', 'q-app'];

/** What the page looked like before scripts were removed; taken from the unsanitised document. */
export interface SurfaceSignals {
  hasPasswordInput: boolean;
  /** Characters of text inside forms that hold a password field. */
  passwordFormChars: number;
  scriptCount: number;
  hasEmptyRoot: boolean;
}

/** Reads the signals from the document as served (call before sanitising). */
export function readSurfaceSignals(document: Document): SurfaceSignals {
  const passwords = Array.from(document.querySelectorAll('input')).filter(
    (input) => (input.getAttribute('type') ?? '').trim().toLowerCase() === 'password',
  );
  const forms = new Set(passwords.map((input) => input.closest('form')).filter((form) => form !== null));
  let passwordFormChars = 0;
  for (const form of forms) passwordFormChars += (form.textContent ?? '').replace(/\s+/g, ' ').trim().length;
  const hasEmptyRoot = ROOT_IDS.some((id) => {
    const element = document.getElementById(id);
    return element !== null && (element.textContent ?? '').trim() === '';
  });
  return {
    hasPasswordInput: passwords.length > 0,
    passwordFormChars,
    scriptCount: document.querySelectorAll('script').length,
    hasEmptyRoot,
  };
}

/** SIGN_IN, APP_SHELL or null, from the signals and the length of the body's visible text. */
export function classifySurface(signals: SurfaceSignals, visibleChars: number): PageSurface | null {
  if (signals.hasPasswordInput && visibleChars - signals.passwordFormChars < SIGN_IN_MAX_OTHER_CHARS) {
    return 'SIGN_IN';
  }
  if (signals.hasEmptyRoot && visibleChars < APP_SHELL_MAX_CHARS) return 'APP_SHELL';
  if (signals.scriptCount > 0 && visibleChars < SCRIPTED_SHELL_MAX_CHARS) return 'APP_SHELL';
  return null;
}
