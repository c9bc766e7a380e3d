// Valid app deep-link documents (apple-app-site-association, assetlinks.json) and their paths.
export const AASA = '/.well-known/apple-app-site-association';
export const ASSETLINKS = '/.well-known/assetlinks.json';
export const FINGERPRINT = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0').toUpperCase()).join(
  ':',
);

export const APPLE = {
  applinks: {
    details: [
      { appIDs: ['ABCDE12345.com.example.app'], components: [{ '/': '/go/*', comment: 'links' }] },
      { appID: 'ABCDE12345.com.example.other', paths: ['/promo/*'] },
    ],
  },
  webcredentials: { apps: ['ABCDE12345.com.example.app'] },
};
export const ANDROID = [
  {
    relation: ['delegate_permission/common.handle_all_urls'],
    target: { namespace: 'android_app', package_name: 'com.example.app', sha256_cert_fingerprints: [FINGERPRINT] },
  },
  {
    relation: ['delegate_permission/common.get_login_creds'],
    target: { namespace: 'web', site: 'https://example.com' },
  },
];
