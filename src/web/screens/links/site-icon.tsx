// A destination's site icon beside it in the links list, served by the service (getFavicon) where
// it may fetch destinations. Decorative: the address beside it says the same. A site without one
// leaves no broken image.
import { useState } from 'react';
import { faviconUrl } from '../../api/links.ts';

export function SiteIcon({ ws, url }: { ws: string; url: string }) {
  const [failed, setFailed] = useState(false);
  let host = '';
  try {
    const u = new URL(url);
    host = u.protocol === 'https:' || u.protocol === 'http:' ? u.host : '';
  } catch {
    host = '';
  }
  if (!host || failed) return <span className="site-icon site-icon-none" aria-hidden="true" />;
  return (
    <img
      className="site-icon"
      src={faviconUrl(ws, host)}
      alt=""
      width={16}
      height={16}
      loading="lazy"
      onError={() => setFailed(true)}
    />
  );
}
