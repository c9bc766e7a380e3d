import { randomBytes, randomInt } from 'node:crypto';

/** Opaque public ids: a type prefix and 20 random base-36 characters. */
export function newId(prefix: string): string {
  return `${prefix}_${randomString(20)}`;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export function randomString(length: number, alphabet = ALPHABET): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
