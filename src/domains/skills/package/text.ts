const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** True when the bytes are valid UTF-8 and contain no NUL byte (binary files almost always do). */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Decodes UTF-8, or returns null when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}
