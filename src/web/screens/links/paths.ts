/** Addresses of a workspace's screens inside the app. */
export const wsPath = (ws: string, rest = '') => `/w/${encodeURIComponent(ws)}${rest}`;
export const linkPath = (ws: string, linkId: string, rest = '') =>
  wsPath(ws, `/links/${encodeURIComponent(linkId)}${rest}`);
