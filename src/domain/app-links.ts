// The app deep-link documents a short domain serves at /.well-known/: Apple's
// apple-app-site-association and Android's assetlinks.json. Their shapes are checked here, so
// that a document a phone would ignore (and with it every `os` rule's app) is refused when it
// is stored, naming the place that is wrong; what passes is kept as normalised JSON text and
// served as stored, byte for byte.
import { AppError, invalid } from './errors.ts';

/** Each document's stored (normalised) size at most; a real one is a few hundred bytes. */
export const APP_LINKS_MAX_BYTES = 64 * 1024;

/** The two documents of a domain, as parsed JSON; null when the domain has none. */
export interface AppLinksInput {
  apple?: unknown;
  android?: unknown;
}

/** The two documents as stored and served: normalised JSON text, or null. */
export interface AppLinksText {
  apple: string | null;
  android: string | null;
}

// An Apple app id: a 10-character team id, a dot, a bundle id (letters, digits, `-`, dots).
const APP_ID = /^[A-Z0-9]{10}\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/;
// An Android application id: two or more segments, each a Java identifier starting with a letter.
const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+$/;
// A SHA-256 signing certificate fingerprint as `keytool` prints it: 32 upper-case hex pairs.
const FINGERPRINT = /^[0-9A-F]{2}(?::[0-9A-F]{2}){31}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function appIdList(value: unknown, field: string): void {
  if (!Array.isArray(value) || value.length === 0)
    throw invalid(`${field} must be a non-empty array of app ids`, field);
  value.forEach((id, i) => {
    if (typeof id !== 'string' || !APP_ID.test(id))
      throw invalid(
        `${field}.${i} must be an app id TEAMID.bundle.id, such as ABCDE12345.com.example.app`,
        `${field}.${i}`,
      );
  });
}

function checkApple(doc: unknown): void {
  if (!isObject(doc)) throw invalid('apple must be a JSON object (apple-app-site-association)', 'apple');
  if (!('applinks' in doc || 'webcredentials' in doc || 'appclips' in doc))
    throw invalid('apple must have at least one of applinks, webcredentials, appclips', 'apple');
  if ('applinks' in doc) {
    const applinks = doc.applinks;
    if (!isObject(applinks)) throw invalid('apple.applinks must be an object', 'apple.applinks');
    if (!Array.isArray(applinks.details))
      throw invalid('apple.applinks.details must be an array', 'apple.applinks.details');
    applinks.details.forEach((entry, i) => {
      const at = `apple.applinks.details.${i}`;
      if (!isObject(entry)) throw invalid(`${at} must be an object`, at);
      if (entry.appIDs !== undefined) appIdList(entry.appIDs, `${at}.appIDs`);
      else if (typeof entry.appID !== 'string' || !APP_ID.test(entry.appID))
        throw invalid(`${at}.appID must be an app id TEAMID.bundle.id (or give appIDs)`, `${at}.appID`);
      if (entry.paths === undefined && entry.components === undefined)
        throw invalid(`${at}.paths (or ${at}.components) is required`, `${at}.paths`);
      if (entry.paths !== undefined && !isStringList(entry.paths))
        throw invalid(`${at}.paths must be an array of strings`, `${at}.paths`);
      if (entry.components !== undefined && !(Array.isArray(entry.components) && entry.components.every(isObject)))
        throw invalid(`${at}.components must be an array of objects`, `${at}.components`);
    });
  }
  for (const key of ['webcredentials', 'appclips'] as const) {
    if (!(key in doc)) continue;
    if (!isObject(doc[key])) throw invalid(`apple.${key} must be an object`, `apple.${key}`);
    appIdList((doc[key] as Record<string, unknown>).apps, `apple.${key}.apps`);
  }
}

function checkTarget(target: unknown, at: string): void {
  if (!isObject(target)) throw invalid(`${at} must be an object`, at);
  if (target.namespace === 'android_app') {
    if (typeof target.package_name !== 'string' || !PACKAGE.test(target.package_name))
      throw invalid(`${at}.package_name must be an application id, such as com.example.app`, `${at}.package_name`);
    const prints = target.sha256_cert_fingerprints;
    if (!Array.isArray(prints) || prints.length === 0)
      throw invalid(`${at}.sha256_cert_fingerprints must be a non-empty array`, `${at}.sha256_cert_fingerprints`);
    prints.forEach((p, j) => {
      if (typeof p !== 'string' || !FINGERPRINT.test(p))
        throw invalid(
          `${at}.sha256_cert_fingerprints.${j} must be 32 upper-case hex pairs separated by colons`,
          `${at}.sha256_cert_fingerprints.${j}`,
        );
    });
  } else if (target.namespace === 'web') {
    let ok = false;
    try {
      ok = typeof target.site === 'string' && new URL(target.site).protocol === 'https:';
    } catch {}
    if (!ok) throw invalid(`${at}.site must be an https:// address`, `${at}.site`);
  } else {
    throw invalid(`${at}.namespace must be android_app or web`, `${at}.namespace`);
  }
}

function checkAndroid(doc: unknown): void {
  if (!Array.isArray(doc) || doc.length === 0)
    throw invalid('android must be a non-empty JSON array of statements (assetlinks.json)', 'android');
  doc.forEach((statement, i) => {
    const at = `android.${i}`;
    if (!isObject(statement)) throw invalid(`${at} must be an object`, at);
    const relation = statement.relation;
    if (!Array.isArray(relation) || relation.length === 0 || !relation.every((r) => typeof r === 'string' && r))
      throw invalid(`${at}.relation must be a non-empty array of strings`, `${at}.relation`);
    checkTarget(statement.target, `${at}.target`);
  });
}

function normalised(doc: unknown, field: 'apple' | 'android'): string {
  const text = JSON.stringify(doc);
  const bytes = Buffer.byteLength(text);
  if (bytes > APP_LINKS_MAX_BYTES)
    throw new AppError('too_large', `${field} is ${bytes} bytes; at most ${APP_LINKS_MAX_BYTES} (64 KiB)`, { field });
  return text;
}

/**
 * Both documents checked and normalised; a document left out or null is none. Throws a 400
 * (413 for size) naming the first place that is wrong, before anything is stored.
 */
export function appLinksText(input: AppLinksInput): AppLinksText {
  const apple = input.apple ?? null;
  const android = input.android ?? null;
  if (apple !== null) checkApple(apple);
  if (android !== null) checkAndroid(android);
  return {
    apple: apple === null ? null : normalised(apple, 'apple'),
    android: android === null ? null : normalised(android, 'android'),
  };
}

/** The paths the documents are served at, and which document each is. */
export const WELL_KNOWN_PATHS: Readonly<Record<string, keyof AppLinksText>> = {
  '/.well-known/apple-app-site-association': 'apple',
  '/.well-known/assetlinks.json': 'android',
};
