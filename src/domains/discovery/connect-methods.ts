/** Which ways of connecting this server offers; documents describe only what exists. */
export interface ConnectMethods {
  projectKey: boolean;
  devicePairing: boolean;
  nativeOAuth: boolean;
}

export const SERVER_NAME = 'Cairn';
/** The version of the interface served (SPEC Versioning 1); package.json carries the same number. */
export const SERVER_VERSION = '0.9.0';
