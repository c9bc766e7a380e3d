// Beside a saved link's form: its short URL to open or copy, its analytics and routing, clicks
// and status.
import { Link } from 'wouter';
import type { DashboardLink } from '../../api/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { formatCount } from '../../lib/format.ts';
import { linkPath } from './paths.ts';

export function LinkSummary({ ws, link }: { ws: string; link: DashboardLink }) {
  return (
    <div className="editor-summary">
      <section className="panel" aria-labelledby="short-heading">
        <h2 id="short-heading">Short URL</h2>
        <p className="short-url-big">
          <a href={link.shortUrl} target="_blank" rel="noreferrer">
            {link.shortUrl}
          </a>
        </p>
        <div className="button-row">
          <CopyButton text={link.shortUrl} label="Copy short URL" visible="Copy short URL" />
          <Link href={linkPath(ws, link.id, '/analytics')} className="button button-small">
            Analytics
          </Link>
          <Link href={linkPath(ws, link.id, '/routing')} className="button button-small">
            Routing
          </Link>
        </div>
        <dl className="facts">
          <div>
            <dt>Clicks</dt>
            <dd>{formatCount(link.clicks)}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>{link.status === 'ACTIVE' ? 'Active' : 'Disabled'}</dd>
          </div>
        </dl>
      </section>
    </div>
  );
}
