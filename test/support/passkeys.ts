// A passkey authenticator in Node, for the suites that test passkeys through HTTP without a
// browser: it answers registration options with a "none" attestation and sign-in options with
// an ES256 assertion (node:crypto), as a platform authenticator with user verification would
// (WebAuthn Level 2, 6.1 authenticator data; 6.5.4 the "none" format). Chromium's virtual
// authenticator covers the same in test/browser/dashboard-passkeys.test.ts.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

/** The origin the test server's PUBLIC_URL names (test/support/server.ts). */
export const TEST_ORIGIN = 'https://localhost:8443';
export const TEST_RP_ID = 'localhost';

const b64 = (bytes: Uint8Array) => isoBase64URL.fromBuffer(new Uint8Array(bytes));
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  /** The user handle the registration options named (base64url). */
  userHandle: string;
  signCount: number;
}

export interface AssertOptions {
  /** Sign with this credential rather than the first allowed or made. */
  credential?: SoftCredential;
  /** Another origin than the test server's (a phishing page's). */
  origin?: string;
  /** Flip a byte of the signature. */
  forge?: boolean;
  /** Claim another user handle. */
  userHandle?: string;
  /** The counter to sign with (default: the next one). */
  signCount?: number;
}

function authenticatorData(rpId: string, flags: number, signCount: number, attested?: Buffer): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(signCount);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
}

const clientData = (type: string, challenge: string, origin: string) =>
  Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

/** User present (0x01), user verified (0x04); with attested credential data (0x40). */
const UP_UV = 0x05;
const AT = 0x40;

export function softAuthenticator(rpId = TEST_RP_ID, origin = TEST_ORIGIN) {
  const credentials: SoftCredential[] = [];
  return {
    credentials,

    /** The browser's answer to registration options (`options` as the API gave them). */
    register(options: any, opts: { origin?: string; userVerified?: boolean } = {}) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const cose = new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, isoBase64URL.toBuffer(jwk.x!)],
        [-3, isoBase64URL.toBuffer(jwk.y!)],
      ]);
      const id = randomBytes(16);
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(id.length);
      const attested = Buffer.concat([Buffer.alloc(16), idLength, id, Buffer.from(isoCBOR.encode(cose))]);
      const flags = (opts.userVerified === false ? 0x01 : UP_UV) | AT;
      const authData = authenticatorData(rpId, flags, 0, attested);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', new Uint8Array(authData)],
        ]) as never,
      );
      const credential: SoftCredential = { id: b64(id), privateKey, userHandle: options.user.id, signCount: 0 };
      credentials.push(credential);
      return {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key',
        response: {
          clientDataJSON: b64(clientData('webauthn.create', options.challenge, opts.origin ?? origin)),
          attestationObject: b64(attestationObject),
          transports: ['internal'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },

    /** The browser's answer to sign-in options. */
    assert(options: any, opts: AssertOptions = {}) {
      const allowed: string[] = (options.allowCredentials ?? []).map((c: { id: string }) => c.id);
      const credential =
        opts.credential ?? credentials.find((c) => allowed.length === 0 || allowed.includes(c.id)) ?? credentials[0];
      if (!credential) throw new Error('the soft authenticator holds no credential');
      credential.signCount = opts.signCount ?? credential.signCount + 1;
      const authData = authenticatorData(rpId, UP_UV, credential.signCount);
      const data = clientData('webauthn.get', options.challenge, opts.origin ?? origin);
      const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), credential.privateKey);
      if (opts.forge) signature[signature.length - 1] ^= 0x01;
      return {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key',
        response: {
          clientDataJSON: b64(data),
          authenticatorData: b64(authData),
          signature: b64(signature),
          userHandle: opts.userHandle ?? credential.userHandle,
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
}

export type SoftAuthenticator = ReturnType<typeof softAuthenticator>;
