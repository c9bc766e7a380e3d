// A QR code on the redirect path: `/qr/{code}` is a scan, followed as a visit of the code's link
// and counted with the code; `/qr/{code}.svg` and `.png` are its image (qr.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NOT_FOUND, type Cached, type LookupTiers } from './lookup-tiers.ts';
import { qrImage } from './qr.ts';
import type { VisitHeaders } from './visitor.ts';

const QR_CODE = /^[a-z0-9]{1,32}$/;

/** What the QR route uses of the redirect service (handler.ts), which passes itself. */
export interface QrRouteHost extends Pick<LookupTiers, 'deps' | 'qrCodes' | 'generation'> {
  readonly responses: Float64Array;
  answer(req: IncomingMessage, res: ServerResponse, h: VisitHeaders, cached: Cached, qrCodeId: string | null): void;
  fail(res: ServerResponse, err: unknown): void;
}

export async function routeQr(
  svc: QrRouteHost,
  req: IncomingMessage,
  res: ServerResponse,
  h: VisitHeaders,
  code: string,
  format: 'svg' | 'png' | null,
): Promise<void> {
  try {
    let target = QR_CODE.test(code) ? svc.qrCodes.get(code) : null;
    if (target === undefined) {
      const generation = svc.generation;
      target = await svc.deps.store.findQr(code);
      if (generation === svc.generation) svc.qrCodes.set(code, target);
    }
    if (!target) return svc.answer(req, res, h, NOT_FOUND, null);
    if (format) {
      const image = await qrImage(`https://${svc.deps.config.shortDomain}/qr/${code}`, format);
      svc.responses[200]++;
      res.writeHead(200, {
        'Content-Type': format === 'svg' ? 'image/svg+xml' : 'image/png',
        'Content-Length': Buffer.byteLength(image),
        'Cache-Control': 'public, max-age=86400',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : image);
      return;
    }
    const link = await svc.deps.store.findLinkById(target.linkId);
    svc.answer(req, res, h, link ?? NOT_FOUND, target.id);
  } catch (err) {
    svc.fail(res, err);
  }
}
