// QR code images (SVG and PNG) of a QR code's scan address, drawn by the qrcode library.
import QRCode from 'qrcode';

const cache = new Map<string, Buffer | string>();

export async function qrImage(scanUrl: string, format: 'svg' | 'png'): Promise<Buffer | string> {
  const key = `${format}:${scanUrl}`;
  let image = cache.get(key);
  if (!image) {
    image =
      format === 'svg'
        ? await QRCode.toString(scanUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
        : await QRCode.toBuffer(scanUrl, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 512 });
    if (cache.size > 1000) cache.clear();
    cache.set(key, image);
  }
  return image;
}
