// A stored destination as the value of a redirect's Location header.

const PLAIN_HTTP_URL = /^https?:\/\/[\x21-\x7e]+$/;

/**
 * A stored URL as a Location header value: as given when it is plain ASCII with an authority
 * (`scheme://`, what the API stores), else as the URL parser reads it; null unless it is an
 * absolute http(s) URL. The API only stores such URLs; this second check keeps
 * a row written any other way (an import, a hand edit) from becoming a redirect to
 * `javascript:`, `data:` or a scheme-relative address.
 */
export function locationOf(url: string): string | null {
  // The usual row, an ASCII http(s) URL, without building a URL object: URL.canParse answers
  // the same question for a fraction of the cost (a cache miss is on the hot path).
  if (PLAIN_HTTP_URL.test(url) && URL.canParse(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  // The parser's reading, not the text: a row written before destinations were stored normalised
  // may hold `https:evil.example`, which a browser resolves against the short link's address.
  return parsed.href;
}
