// A phone visitor's user agent, as the suites send it, and what the click writer stores of it
// (src/clicks/device.ts).
export const IPHONE_USER_AGENT =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

/** The device, browser and OS columns of a click from IPHONE_USER_AGENT. */
export const IPHONE_STORED = { device: 'mobile', browser: 'Mobile Safari', os: 'iOS' } as const;
