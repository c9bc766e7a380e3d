// The dashboard's anti-forgery check compares the Origin a browser sent with the service's own.

/**
 * Whether two origins are the same, as a browser compares them: scheme, host and port, the
 * scheme's default port whether written or not (a proxy that passes `Host: sho.rt:443` on, or
 * drops the port, does not make the dashboard's own requests foreign).
 */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
