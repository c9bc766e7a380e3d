// HTTPS only: the configured certificate, or a self-signed development one kept in DATA_DIR.
import fs from 'node:fs';
import path from 'node:path';
import selfsigned from 'selfsigned';
import type { Config } from '../config.ts';

export interface TlsMaterial {
  cert: string;
  key: string;
}

export async function loadOrCreateCertificate(config: Config): Promise<TlsMaterial> {
  if (config.tlsCertFile || config.tlsKeyFile) {
    if (!config.tlsCertFile || !config.tlsKeyFile)
      throw new Error('TLS_CERT_FILE and TLS_KEY_FILE must be given together');
    return { cert: fs.readFileSync(config.tlsCertFile, 'utf8'), key: fs.readFileSync(config.tlsKeyFile, 'utf8') };
  }
  const certPath = path.join(config.dataDir, 'dev-cert.pem');
  const keyPath = path.join(config.dataDir, 'dev-key.pem');
  if (fs.existsSync(certPath) && fs.existsSync(keyPath)) {
    return { cert: fs.readFileSync(certPath, 'utf8'), key: fs.readFileSync(keyPath, 'utf8') };
  }
  const material = await generateDevCertificate([new URL(`https://${config.shortDomain}`).hostname]);
  fs.mkdirSync(config.dataDir, { recursive: true });
  fs.writeFileSync(keyPath, material.key, { mode: 0o600 });
  fs.writeFileSync(certPath, material.cert);
  return material;
}

export async function generateDevCertificate(extraHosts: string[] = []): Promise<TlsMaterial> {
  const hosts = [...new Set(['localhost', ...extraHosts])];
  const notAfter = new Date();
  notAfter.setFullYear(notAfter.getFullYear() + 2);
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...hosts.map((value) => ({ type: 2, value })), { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }],
      },
    ],
  } as any);
  return { cert: pems.cert, key: pems.private };
}
