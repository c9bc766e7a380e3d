// The link's QR code: made on first ask, shown, and offered as SVG and PNG downloads.
import { useState } from 'react';
import { useCreateQr } from '../../api/links.ts';
import type { DashboardLink, QrCode } from '../../api/types.ts';

export function QrSection({
  workspaceId,
  link,
  canMake,
}: {
  workspaceId: string;
  link: DashboardLink;
  canMake: boolean;
}) {
  const [qr, setQr] = useState<QrCode | null>(null);
  const make = useCreateQr(workspaceId, link.id, { onSuccess: (answer) => setQr(answer.data) });
  return (
    <section className="panel" aria-labelledby="qr-heading">
      <h2 id="qr-heading">QR code</h2>
      {qr ? (
        <div className="qr">
          <img src={qr.svgUrl} alt={`QR code for ${link.shortUrl}`} width={160} height={160} className="qr-image" />
          <p className="qr-downloads">
            <a href={qr.svgUrl} download={`${link.slug}-qr.svg`} className="button button-small">
              Download SVG
            </a>
            <a href={qr.pngUrl} download={`${link.slug}-qr.png`} className="button button-small">
              Download PNG
            </a>
          </p>
          <p className="field-hint">Scans count separately from clicks in the link's analytics.</p>
        </div>
      ) : canMake ? (
        <>
          <p className="muted">A code that opens this link; scans are counted in its analytics.</p>
          <button
            type="button"
            className={`button${make.isPending ? ' is-busy' : ''}`}
            disabled={make.isPending}
            onClick={() => make.mutate()}
          >
            Make QR code
          </button>
        </>
      ) : (
        <p className="muted">Members who can change links make QR codes.</p>
      )}
      {make.isError ? (
        <p role="alert" className="field-error">
          {make.error.message}
        </p>
      ) : null}
    </section>
  );
}
