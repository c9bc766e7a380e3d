// The way back from a link's own screens (its routing, its analytics): "All links / Edit {slug}",
// the slug's part once the link has been read.
import { Link } from 'wouter';
import { linkPath, wsPath } from './paths.ts';

export function LinkTrail({ ws, linkId, slug }: { ws: string; linkId: string; slug: string | undefined }) {
  return (
    <>
      <Link href={wsPath(ws, '/links')} className="back-link">
        All links
      </Link>
      {slug ? (
        <>
          {' / '}
          <Link href={linkPath(ws, linkId)}>Edit {slug}</Link>
        </>
      ) : null}
    </>
  );
}
